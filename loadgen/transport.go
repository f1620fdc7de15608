package loadgen

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// TransportOptions tunes the transport NewTransport builds.
type TransportOptions struct {
	// MaxIdleConnsPerHost is how many idle keep-alive connections are kept per
	// target; 0 means 4096. Above the number in flight at the base rate is wasted.
	MaxIdleConnsPerHost int
	// Linger0 sets SO_LINGER to 0 on every connection, so a connection that
	// is closed (after a timed-out attempt, typically) is reset at once and
	// leaves no TIME_WAIT socket holding its port for 60 s. On by default in
	// DefaultTransportOptions; see the package doc, "Timeout storms".
	Linger0 bool
	// SourceAddrs, when above 1 and the target is an IPv4 loopback address,
	// spreads connections round-robin over that many source addresses
	// 127.0.1.1, 127.0.1.2, … (at most 254), multiplying the ephemeral ports
	// available to one target.
	SourceAddrs int
	// HTTP2 speaks HTTP/2 only: h2 over TLS for https:// targets and
	// unencrypted HTTP/2 with prior knowledge (h2c) for http:// targets, so
	// the target must speak it. HTTP/2 multiplexes attempts on a few
	// connections and abandons a timed-out attempt with a stream reset
	// instead of closing its connection: a timeout storm costs no new
	// connections and far less memory per attempt in flight.
	HTTP2 bool
	// TLS configures https:// connections; nil = Go's defaults with the
	// system's roots.
	TLS *tls.Config
	// DialTimeout bounds a connect; 0 means 10 s (the attempt's context
	// bounds it too).
	DialTimeout time.Duration
	// BufferSize is the size of each connection's read and write buffers,
	// bytes; 0 means 1 KiB. net/http's default (4 KiB each) is most of the
	// memory of an idle or waiting HTTP/1.1 connection; request headers and
	// response heads of a probe fit in 1 KiB, longer lines are read in pieces
	// and bodies bypass the buffer.
	BufferSize int
}

// DefaultTransportOptions are the settings the driver uses when
// Config.Transport is nil: SO_LINGER 0, one source address, HTTP/1.1.
func DefaultTransportOptions() TransportOptions {
	return TransportOptions{Linger0: true}
}

// NewTransport returns an http.Transport tuned for load generation: no
// proxy, no compression, a large idle pool per host, no limit on
// connections per host (MaxInFlight bounds them), and the options above.
func NewTransport(o TransportOptions) *http.Transport {
	if o.MaxIdleConnsPerHost <= 0 {
		o.MaxIdleConnsPerHost = 4096
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.BufferSize <= 0 {
		o.BufferSize = 1 << 10
	}
	d := newDialer(o)
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.dialContext,
		MaxIdleConns:          0, // no global limit
		MaxIdleConnsPerHost:   o.MaxIdleConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		DisableCompression:    true,
		WriteBufferSize:       o.BufferSize,
		ReadBufferSize:        o.BufferSize,
		TLSClientConfig:       o.TLS,
	}
	if o.HTTP2 {
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		t.Protocols = &p
	}
	return t
}

// newDialer returns the dialer of the options (defaults filled in by the caller).
func newDialer(o TransportOptions) *dialer {
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	d := &dialer{linger0: o.Linger0}
	d.base = net.Dialer{Timeout: o.DialTimeout, KeepAlive: -1, Control: d.control}
	if n := min(o.SourceAddrs, 254); n > 1 {
		d.sources = make([]*net.Dialer, n)
		for i := range d.sources {
			nd := d.base
			nd.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(i+1))}
			d.sources[i] = &nd
		}
	}
	return d
}

// dialer dials with the transport options' socket settings.
type dialer struct {
	base    net.Dialer
	sources []*net.Dialer
	next    atomic.Uint32
	linger0 bool
}

func (d *dialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if len(d.sources) > 0 && (network == "tcp" || network == "tcp4") {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			if ip := net.ParseIP(host); ip != nil && ip.To4() != nil && ip.IsLoopback() {
				i := d.next.Add(1) % uint32(len(d.sources))
				return d.sources[i].DialContext(ctx, "tcp4", addr)
			}
		}
	}
	return d.base.DialContext(ctx, network, addr)
}
