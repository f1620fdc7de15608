package staging

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Defaults of HAProxyConfig.
const (
	// DefaultRetryOn is the failures haproxy retries: the connection could
	// not be made, the server closed it without answering, or the try
	// timed out (TryTimeout). Anything beyond "conn-failure" is an L7 retry.
	DefaultRetryOn = "conn-failure empty-response response-timeout"
	// DefaultConnectTimeout bounds one connection attempt to the upstream.
	DefaultConnectTimeout = time.Second
	// DefaultClientTimeout is haproxy's client-side inactivity timeout. It
	// does not run while haproxy waits for the upstream's answer (measured:
	// with 1 s, five 400 ms tries all happened and the client got its 504
	// after 2 s), so it does not bound the tries.
	DefaultClientTimeout = 30 * time.Second
	// DefaultMaxConn is the most concurrent client connections haproxy
	// accepts; more wait in the kernel's listen backlog, which the client
	// sees as latency. haproxy 2.6 raises RLIMIT_NOFILE to 2·maxconn + 17
	// with this configuration (measured: 9,991 fits under a hard limit of
	// 20,000, 9,992 asks for 20,001) and refuses to start when the hard
	// limit is lower ("Cannot raise FD limit to 100017, limit is 20000" for
	// 50,000). 4,000 needs 8,017, well under the 20,000 of the machines
	// this runs on, and is more than a load of 1,000 attempts/s with a 1 s
	// client timeout keeps open. A lower hard limit lowers the default (see
	// defaultMaxConn); an explicit MaxConn is used as given.
	DefaultMaxConn = 4000
	// DefaultHAProxyStartTimeout bounds the wait for the frontend to answer.
	DefaultHAProxyStartTimeout = 15 * time.Second
	// ReadyPath is answered 200 by haproxy itself (monitor-uri), never
	// forwarded: StartHAProxy polls it, so readiness checks cost the
	// upstream no request.
	ReadyPath = "/_staging/haproxy-ready"
	// fdReserve is the descriptors kept out of the maxconn computation:
	// haproxy's listeners, pollers and log, with room to spare.
	fdReserve = 64
)

// HAProxyConfig configures StartHAProxy: one HTTP frontend on a free
// loopback port, one backend with one server, Upstream. Zero fields take
// the defaults above, except TryTimeout, which is required.
type HAProxyConfig struct {
	// Binary is the haproxy program; "" = found by LookBinary("haproxy", "").
	Binary string
	// Upstream is the host:port of the backend's only server; it must be a
	// loopback address.
	Upstream string
	// TryTimeout is haproxy's "timeout server": how long one try may wait
	// for the upstream's answer (an inactivity timeout, so for a request
	// that waits on the server, the per-try timeout). Required, at least
	// 1 ms; rounded up to whole milliseconds.
	TryTimeout time.Duration
	// Retries is haproxy's "retries": tries after the first, so at most
	// Retries+1 upstream requests per client request. 0 = no retry.
	// Retries go to the same (only) server, with no pause between L7
	// retries; a connection failure is retried after min(ConnectTimeout,
	// 1 s).
	Retries int
	// RetryOn is haproxy's "retry-on" keyword list; "" = DefaultRetryOn.
	RetryOn string
	// ConnectTimeout is haproxy's "timeout connect"; 0 = DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ClientTimeout is haproxy's "timeout client"; 0 = DefaultClientTimeout.
	ClientTimeout time.Duration
	// AbortOnClose sets haproxy's "option abortonclose": when the client
	// closes its connection, the try in flight is aborted and no more tries
	// are made. Without it (haproxy's default) haproxy makes every try even
	// after its client has gone.
	AbortOnClose bool
	// LogRequests makes haproxy log one line per request (option httplog)
	// to haproxy.log when the request ends: timers, status, termination
	// state and, last of the "a/f/b/s/r" connection counts, the retries
	// it made. Off, the log holds only haproxy's warnings and alerts.
	LogRequests bool
	// Exporter serves haproxy's own Prometheus exporter (its
	// prometheus-exporter service, built into Debian's haproxy) at
	// /metrics on a port of its own (HAProxy.ExporterAddr): counters kept
	// before the upstream's queue, such as
	// haproxy_backend_connection_attempts_total, which counts every try.
	Exporter bool
	// MaxConn is haproxy's global "maxconn"; 0 = DefaultMaxConn, or less
	// when the hard descriptor limit is too low for it (see DefaultMaxConn).
	MaxConn int
	// Upstreams are more servers of the backend besides Upstream (loopback
	// addresses), balanced round robin; none by default.
	Upstreams []string
	// ServerMaxConn is every server's "maxconn": the most requests haproxy
	// sends one server at once; the rest wait in haproxy's own queue, at
	// most QueueTimeout. 0 = no limit (haproxy queues nothing).
	ServerMaxConn int
	// QueueTimeout is haproxy's "timeout queue": a request that waited
	// that long in haproxy's queue for a server is answered 503 and
	// dropped from the queue. 0 = haproxy's default (timeout connect).
	QueueTimeout time.Duration
	// FrontendMaxConn is the frontend's "maxconn": past it haproxy stops
	// accepting, and connections wait in the kernel's accept backlog of its
	// listening socket (Backlog). 0 = only the global MaxConn.
	FrontendMaxConn int
	// CloseEach sets haproxy's "option httpclose": it closes the client's
	// connection after each answer, so every request comes on a new
	// connection, through the accept backlog. Without it a client keeps
	// its connection alive and its next request skips the backlog.
	CloseEach bool
	// ServerClose sets haproxy's "option http-server-close": it closes
	// its connection to the server after each answer. A server that closes
	// it itself (uWSGI's http-socket) otherwise races haproxy's reuse of
	// the idle connection, and loses a request now and then (a 502, "SH",
	// when nothing retries it).
	ServerClose bool
	// Backlog is the frontend's listen backlog ("backlog" on its bind
	// line), capped by the kernel's net.core.somaxconn. 0 = haproxy's
	// default (the frontend's maxconn).
	Backlog int
	// Dir holds haproxy.cfg and haproxy.log; "" = a new temporary directory,
	// removed by Stop. A given directory is left in place.
	Dir string
	// StartTimeout bounds the wait for the frontend; 0 =
	// DefaultHAProxyStartTimeout.
	StartTimeout time.Duration
}

// withDefaults returns c with zero fields set, or the first invalid field.
func (c HAProxyConfig) withDefaults() (HAProxyConfig, error) {
	for _, u := range append([]string{c.Upstream}, c.Upstreams...) {
		if err := checkLoopback("haproxy upstream", u); err != nil {
			return c, err
		}
	}
	if c.ServerMaxConn < 0 || c.FrontendMaxConn < 0 || c.Backlog < 0 || c.QueueTimeout < 0 {
		return c, fmt.Errorf("staging: haproxy ServerMaxConn %d, FrontendMaxConn %d, Backlog %d, QueueTimeout %s: want 0 or more", c.ServerMaxConn, c.FrontendMaxConn, c.Backlog, c.QueueTimeout)
	}
	if c.TryTimeout < time.Millisecond {
		return c, fmt.Errorf("staging: haproxy TryTimeout %s: want at least 1ms", c.TryTimeout)
	}
	if c.Retries < 0 {
		return c, fmt.Errorf("staging: haproxy Retries %d: want 0 or more", c.Retries)
	}
	if c.RetryOn == "" {
		c.RetryOn = DefaultRetryOn
	}
	if strings.ContainsAny(c.RetryOn, "\n\r#") {
		return c, errors.New("staging: haproxy RetryOn: one line of keywords, no comment")
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.ClientTimeout == 0 {
		c.ClientTimeout = DefaultClientTimeout
	}
	if c.ConnectTimeout < time.Millisecond || c.ClientTimeout < time.Millisecond {
		return c, fmt.Errorf("staging: haproxy ConnectTimeout %s, ClientTimeout %s: want at least 1ms", c.ConnectTimeout, c.ClientTimeout)
	}
	if c.MaxConn == 0 {
		c.MaxConn = defaultMaxConn(hardFDLimit())
	}
	if c.MaxConn < 1 {
		return c, fmt.Errorf("staging: haproxy MaxConn %d: want 1 or more", c.MaxConn)
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultHAProxyStartTimeout
	}
	return c, nil
}

// defaultMaxConn is DefaultMaxConn, lowered so that 2 descriptors per
// connection plus fdReserve fit under the hard limit when it is known.
func defaultMaxConn(hard uint64, known bool) int {
	if !known || hard >= 2*DefaultMaxConn+fdReserve {
		return DefaultMaxConn
	}
	if hard <= fdReserve+2 {
		return 1
	}
	return int((hard - fdReserve) / 2)
}

// render returns haproxy.cfg for c (defaults applied) with the frontend
// bound to listen.
//
// "option http-buffer-request" makes haproxy wait for a request's whole
// body before it connects: haproxy 2.6 keeps a copy for L7 retries only of
// a request complete when first sent (its msg_state is DONE), so without
// it a request whose body arrives late is never retried. Bodiless GETs
// need nothing. There is no "option redispatch": a retry stays on the
// server it was tried on, which is what a single-server backend wants.
func (c HAProxyConfig) render(listen, exporter string) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# Written by internal/staging.")
	w("global")
	w("    maxconn %d", c.MaxConn)
	if c.LogRequests {
		w("    log stderr format raw local0")
	}
	w("defaults")
	w("    mode http")
	w("    timeout connect %s", ms(c.ConnectTimeout))
	w("    timeout client %s", ms(c.ClientTimeout))
	w("    timeout server %s", ms(c.TryTimeout))
	if c.QueueTimeout > 0 {
		w("    timeout queue %s", ms(c.QueueTimeout))
	}
	w("    retries %d", c.Retries)
	w("    retry-on %s", c.RetryOn)
	w("    option http-buffer-request")
	if c.AbortOnClose {
		w("    option abortonclose")
	}
	if c.ServerClose {
		w("    option http-server-close")
	}
	if c.LogRequests {
		w("    log global")
		w("    option httplog")
	}
	w("frontend fe")
	if c.Backlog > 0 {
		w("    bind %s backlog %d", listen, c.Backlog)
	} else {
		w("    bind %s", listen)
	}
	if c.FrontendMaxConn > 0 {
		w("    maxconn %d", c.FrontendMaxConn)
	}
	if c.CloseEach {
		w("    option httpclose")
	}
	w("    monitor-uri %s", ReadyPath)
	w("    default_backend be")
	if c.Exporter {
		w("frontend exporter")
		w("    bind %s", exporter)
		w("    http-request use-service prometheus-exporter if { path /metrics }")
	}
	w("backend be")
	server := ""
	if c.ServerMaxConn > 0 {
		server = fmt.Sprintf(" maxconn %d", c.ServerMaxConn)
	}
	w("    server upstream %s%s", c.Upstream, server)
	for i, u := range c.Upstreams {
		w("    server upstream%d %s%s", i+2, u, server)
	}
	return b.String()
}

// ms formats d for haproxy in whole milliseconds, rounded up.
func ms(d time.Duration) string {
	return fmt.Sprintf("%dms", (d+time.Millisecond-1)/time.Millisecond)
}
