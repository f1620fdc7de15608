package staging

import (
	"context"
	"fmt"
	"net"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// Specimen is the specimen service (examples/specimen/specimen) served in
// this process on a loopback port.
type Specimen struct {
	// URL is its base URL, "http://127.0.0.1:port"; the service is URL+"/work".
	URL string
	// Addr is its address, "127.0.0.1:port".
	Addr string
	// Server is the specimen itself: Stats for its counters, Config for
	// the configuration in force.
	Server *specimen.Server

	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's result, read after done
}

// StartSpecimen starts a specimen with cfg on a free loopback port. It
// serves until Stop or the end of ctx; Stop waits for it either way.
func StartSpecimen(ctx context.Context, cfg specimen.Config) (*Specimen, error) {
	srv, err := specimen.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("staging: specimen: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("staging: specimen: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &Specimen{URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(), Server: srv,
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
func (s *Specimen) Stop() error {
	s.cancel()
	<-s.done
	return s.err
}
