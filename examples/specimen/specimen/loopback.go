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
	// GRPCAddr is the address of its gRPC listener (specimen.Work/Do),
	// "127.0.0.1:port", when Config.GRPCAddr asked for one; else "".
	GRPCAddr string
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
// the runs that compare them. With cfg.GRPCAddr (a loopback HOST:PORT,
// port 0 for a free one) it serves gRPC there too.
func StartLoopbackOn(ctx context.Context, cfg Config, addr string) (*Loopback, error) {
	if !isLoopbackAddr(addr) {
		return nil, fmt.Errorf("specimen: %q is no loopback address", addr)
	}
	if cfg.GRPCAddr != "" && !isLoopbackAddr(cfg.GRPCAddr) {
		return nil, fmt.Errorf("specimen: gRPC: %q is no loopback address", cfg.GRPCAddr)
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
	var gln net.Listener
	if cfg.GRPCAddr != "" {
		if gln, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
			_ = ln.Close()
			_ = srv.Close()
			return nil, fmt.Errorf("specimen: gRPC: %w", err)
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &Loopback{URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(), Server: srv,
		cancel: cancel, done: make(chan struct{})}
	if gln != nil {
		s.GRPCAddr = gln.Addr().String()
	}
	go func() {
		defer close(s.done)
		s.err = srv.ServeAll(sctx, ln, gln)
	}()
	return s, nil
}

// isLoopbackAddr reports whether addr is HOST:PORT with a loopback IP.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && net.ParseIP(host).IsLoopback()
}

// Stop shuts the specimen down (requests in flight get at most 2 s),
// waits for it, and returns the error that stopped it serving, if any.
// Idempotent; its counters stay readable.
func (s *Loopback) Stop() error {
	s.cancel()
	<-s.done
	return s.err
}
