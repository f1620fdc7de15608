package specimen

import (
	"context"
	"fmt"
	"net"
)

// Loopback is a specimen served in this process on a loopback port, for
// `trigger demo`, the tests and the benchmarks.
type Loopback struct {
	// URL is its base URL, "http://127.0.0.1:port"; the service is URL+"/work".
	URL string
	// Addr is its address, "127.0.0.1:port".
	Addr string
	// Server is the specimen itself: Stats for its counters, Config for
	// the configuration in force.
	Server *Server

	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's result, read after done
}

// StartLoopback starts a specimen with cfg on a free loopback port. It
// serves until Stop or the end of ctx; Stop waits for it either way.
func StartLoopback(ctx context.Context, cfg Config) (*Loopback, error) {
	return StartLoopbackOn(ctx, cfg, "127.0.0.1:0")
}

// StartLoopbackOn is StartLoopback on addr, a loopback HOST:PORT: two
// specimens started one after the other on one address are one target to
// the runs that compare them.
func StartLoopbackOn(ctx context.Context, cfg Config, addr string) (*Loopback, error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || !net.ParseIP(host).IsLoopback() {
		return nil, fmt.Errorf("specimen: %q is no loopback address", addr)
	}
	srv, err := New(cfg)
	if err != nil {
		return nil, fmt.Errorf("specimen: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("specimen: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &Loopback{URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(), Server: srv,
		cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = srv.Serve(sctx, ln)
	}()
	return s, nil
}

// Stop shuts the specimen down (requests in flight get at most 2 s),
// waits for it, and returns the error that stopped it serving, if any.
// Idempotent; its counters stay readable.
func (s *Loopback) Stop() error {
	s.cancel()
	<-s.done
	return s.err
}
