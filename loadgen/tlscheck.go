package loadgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// tlsCheckTimeout bounds the preflight's TLS handshake with the target,
// and how long it then waits for the server to refuse the client's
// certificate (TLS 1.3 says so only after the handshake).
const tlsCheckTimeout = 5 * time.Second

// CheckTLS shakes hands with an https:// target once, as the driver of
// cfg would, before any load: a handshake that fails for a reason of
// configuration (a CA the client does not trust, a name the certificate
// does not cover, a client certificate the server requires or refuses, a
// file that cannot be read) is an error that says which and what to set.
// A target that cannot be reached at all is not: the warmup finds it, as
// for an http:// target. Nothing is sent over the connection.
func CheckTLS(ctx context.Context, cfg Config) error {
	reqs := cfg.Mix
	if len(reqs) == 0 {
		reqs = []Request{cfg.Request}
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		u, err := url.Parse(r.URL)
		if err != nil || u.Scheme != "https" || seen[u.Host] {
			continue
		}
		seen[u.Host] = true
		if err := checkTLS(ctx, cfg, u); err != nil {
			return err
		}
	}
	return nil
}

// checkTLS shakes hands with the https:// host of u.
func checkTLS(ctx context.Context, cfg Config, u *url.URL) error {
	var err error
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLS != nil {
		if tc, err = cfg.TLS.Load(); err != nil {
			return fmt.Errorf("target %w", err)
		}
	}
	tc = tc.Clone()
	if tc.ServerName == "" {
		tc.ServerName = u.Hostname()
	}
	tc.NextProtos = []string{"http/1.1"}
	if cfg.HTTP2 {
		tc.NextProtos = []string{"h2"}
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	ctx, cancel := context.WithTimeout(ctx, tlsCheckTimeout)
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return nil // unreachable: the warmup says so
	}
	conn := tls.Client(raw, tc)
	defer conn.Close()
	if err := conn.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // a target that does not finish the handshake in time: the warmup finds it, as for one that does not answer
		}
		return tlsRefusal(err, tc.ServerName)
	}
	// With TLS 1.3 a server that requires or refuses the client's
	// certificate sends its alert after the handshake: read a moment.
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var b [1]byte
	if _, err := conn.Read(b[:]); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return nil
		}
		if isRemoteAlert(err) {
			return tlsRefusal(err, tc.ServerName)
		}
	}
	return nil
}

// tlsRefusal says why a handshake failed and what to set.
func tlsRefusal(err error, serverName string) error {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknown):
		return fmt.Errorf("the target's TLS certificate is signed by an authority the client does not trust (%v): set target.tls.ca_file to the CA that signed it", err)
	case errors.As(err, &host):
		return fmt.Errorf("the target's TLS certificate does not cover %q (%v): set target.tls.server_name to a name it covers, or use that name in the URL", serverName, err)
	case errors.As(err, &invalid):
		return fmt.Errorf("the target's TLS certificate is not valid (%v)", err)
	case isRemoteAlert(err):
		return fmt.Errorf("the target refused the TLS handshake (%v): it requires a client certificate it trusts; set target.tls.cert_file and key_file", err)
	}
	return fmt.Errorf("the TLS handshake with the target failed: %w", err)
}

// isRemoteAlert reports whether err is an alert the server sent (a
// refused or missing client certificate among them).
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}
