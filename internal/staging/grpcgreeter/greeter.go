// Package grpcgreeter runs a gRPC server nobody here wrote, for end-to-end
// tests of gRPC targets: grpc-go's own example service, helloworld's
// Greeter (the generated package of the module google.golang.org/grpc/examples,
// Apache-2.0, fetched from the module proxy like any dependency), served by
// grpc-go with go-grpc-middleware's Prometheus metrics
// (grpc_server_started_total, grpc_server_handled_total) on an HTTP
// /metrics, and grpc-go's reflection service.
//
// Only the handler is ours, to give the server a queue: Workers calls are
// served at once, each for a fixed ServiceTime, the others wait in
// arrival order (FIFO) for a worker; a call whose client has left (its
// deadline passed, or it cancelled) is still served unless DropExpired.
//
// It runs in this process, on loopback ports, rather than as a built
// binary: go test builds it from the module proxy with the rest, Stop ends
// every goroutine it started (the tests check with goleak), and Stats are
// the server's own truth without a scrape; the driver still reaches it over
// real TCP and HTTP/2. Its handler waits rather than computes, so it takes
// little of the CPU the driver beside it needs. Like package staging, it
// does not import "testing".
//
//	g, err := grpcgreeter.Start(ctx, grpcgreeter.Config{Workers: 2, ServiceTime: 20 * time.Millisecond})
//	defer g.Stop()
//	// target grpc://g.Addr, method helloworld.Greeter/SayHello;
//	// Prometheus scrapes g.MetricsURL; the truth is g.Stats()
//
// # Queries
//
// The middleware counts a call started when it reaches the server (before
// the queue) and handled when the handler returns, by code:
//
//	ingress  sum(rate(grpc_server_started_total{grpc_method="SayHello"}[5s]))
//	served   sum(rate(grpc_server_handled_total{grpc_method="SayHello",grpc_code="OK"}[5s]))
//	dropped  sum(rate(grpc_server_handled_total{grpc_method="SayHello",grpc_code=~"DeadlineExceeded|Canceled"}[5s]))
//	in line  sum(grpc_server_started_total{grpc_method="SayHello"}) - sum(grpc_server_handled_total{grpc_method="SayHello"})
//
// "served" counts abandoned work too (served after its client left: OK
// like any other), which is what a trigger test wants of it, and nothing
// in these series tells the two apart (Stats does). Nor can they tell
// first attempts from retries: their labels are grpc_type, grpc_service,
// grpc_method and grpc_code only. A server can add a label from the
// call's metadata (WithContextLabels with WithLabelsFromContext, as
// AttemptLabel does: x-attempt, which trigger sends, and
// grpc-previous-rpc-attempts, which grpc-go's own retries send), and then
//
//	first    sum(rate(grpc_server_started_total{grpc_method="SayHello",attempt="first"}[5s]))
//
// Without it, first attempts come from the client side only (the driver's
// own per-second first attempts, when it is the only client).
package grpcgreeter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/examples/helloworld/helloworld"
	"google.golang.org/grpc/reflection"
)

// Method is the greeter's one unary method, as grpc-go names it; a
// scenario's grpc.method is "helloworld.Greeter/SayHello".
const Method = "/helloworld.Greeter/SayHello"

// Defaults of Config.
const (
	DefaultWorkers     = 1
	DefaultServiceTime = 10 * time.Millisecond
	DefaultMaxWaiting  = 10_000
	// grace bounds the wait for calls in flight at Stop.
	grace = 2 * time.Second
)

// Config configures Start. Zero fields take their defaults.
type Config struct {
	// Workers is c, the calls served at once (default 1); the capacity is
	// Workers/ServiceTime calls per second.
	Workers int
	// ServiceTime is each SayHello's fixed service time (default 10 ms).
	ServiceTime time.Duration
	// MaxWaiting bounds the calls waiting for a worker; a call that finds
	// it reached is refused at once with RESOURCE_EXHAUSTED (default
	// 10,000).
	MaxWaiting int
	// DropExpired takes a waiting call out of the line as soon as its
	// client has gone (its deadline passed, or it cancelled): no service,
	// and grpc_server_handled_total counts it DeadlineExceeded, or Canceled
	// (a client whose deadline passes resets its stream, which the server
	// usually sees before its own timer from grpc-timeout fires). Off by
	// default: the call keeps its place, is served, and counts OK.
	DropExpired bool
	// AttemptLabel adds a label "attempt" to the grpc_server_* series,
	// from the call's metadata (WithContextLabels of go-grpc-middleware):
	// "first", "retry" or "tracer" as x-attempt says (1 or absent, ≥ 2, 0),
	// and "retry" for any call with grpc-previous-rpc-attempts (grpc-go's
	// own retries). Off by default, as the middleware comes.
	AttemptLabel bool
	// Addr and MetricsAddr are the loopback addresses of the gRPC and the
	// /metrics listeners (default "127.0.0.1:0": a free port).
	Addr, MetricsAddr string
}

// Greeter is a running greeter. Stop it with Stop; the end of the context
// given to Start stops it too (Stop must still be called, to wait).
type Greeter struct {
	// Addr is the gRPC address, "127.0.0.1:port" (plaintext HTTP/2).
	Addr string
	// MetricsURL is its Prometheus endpoint, "http://127.0.0.1:port/metrics".
	MetricsURL string
	// Config is the configuration in force, defaults applied.
	Config Config

	h        *slowGreeter
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
	err      error // what stopped serving, read after done
}

// Stats are the handler's cumulative counts: the truth the metrics are
// checked against.
type Stats struct {
	// Arrived counts the calls that reached the handler (after the
	// metrics interceptor counted them started).
	Arrived uint64
	// Answered counts calls served while their client was still there;
	// Abandoned those served after it had gone.
	Answered, Abandoned uint64
	// Dropped counts waiting calls taken out of the line, their client
	// gone (DropExpired); Refused those that found the line full.
	Dropped, Refused uint64
	// Waiting and InSystem are the calls waiting for a worker, and waiting
	// or in service, now.
	Waiting, InSystem int64
}

// Stats returns the counts now.
func (g *Greeter) Stats() Stats {
	h := g.h
	return Stats{
		Arrived:   h.arrivals.Load(),
		Answered:  h.c.answered.Load(),
		Abandoned: h.c.abandoned.Load(),
		Dropped:   h.c.dropped.Load(),
		Refused:   h.c.refused.Load(),
		Waiting:   h.waiting.Load(),
		InSystem:  h.inSystem.Load(),
	}
}

// Start serves the greeter on loopback until Stop or the end of ctx.
func Start(ctx context.Context, cfg Config) (*Greeter, error) {
	cfg.Workers = cmp.Or(cfg.Workers, DefaultWorkers)
	cfg.ServiceTime = cmp.Or(cfg.ServiceTime, DefaultServiceTime)
	cfg.MaxWaiting = cmp.Or(cfg.MaxWaiting, DefaultMaxWaiting)
	cfg.Addr = cmp.Or(cfg.Addr, "127.0.0.1:0")
	cfg.MetricsAddr = cmp.Or(cfg.MetricsAddr, "127.0.0.1:0")
	if cfg.Workers < 0 || cfg.ServiceTime < 0 || cfg.MaxWaiting < 0 {
		return nil, fmt.Errorf("grpcgreeter: negative setting in %+v", cfg)
	}
	for _, a := range []string{cfg.Addr, cfg.MetricsAddr} {
		if host, _, err := net.SplitHostPort(a); err != nil || !net.ParseIP(host).IsLoopback() {
			return nil, fmt.Errorf("grpcgreeter: %q is no loopback address", a)
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("grpcgreeter: %w", err)
	}
	mln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("grpcgreeter: metrics: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	h := &slowGreeter{cfg: cfg, slots: make(chan struct{}, cfg.Workers), stop: ctx.Done()}
	metrics, interceptor := newMetrics(cfg.AttemptLabel)
	gs := grpc.NewServer(grpc.ChainUnaryInterceptor(interceptor))
	helloworld.RegisterGreeterServer(gs, h)
	reflection.Register(gs)
	metrics.InitializeMetrics(gs) // every method × code at 0, as a scrape expects
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	g := &Greeter{Addr: ln.Addr().String(), MetricsURL: "http://" + mln.Addr().String() + "/metrics",
		Config: cfg, h: h, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() { errs <- gs.Serve(ln) })
	wg.Go(func() { errs <- hs.Serve(mln) })
	go func() {
		defer close(g.done)
		select {
		case <-ctx.Done():
		case err := <-errs: // a listener failed: stop the other one too
			g.err = err
		}
		stopGRPC(gs)
		_ = hs.Close()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, grpc.ErrServerStopped) && g.err == nil {
				g.err = err
			}
		}
	}()
	return g, nil
}

// stopGRPC lets the calls in flight end, at most grace (the handler's
// waits end at once: its stop channel is closed), then closes the rest.
func stopGRPC(gs *grpc.Server) {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		gs.GracefulStop()
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		gs.Stop()
		<-stopped
	}
}

// Stop shuts the greeter down, waits for it, and returns the error that
// stopped it serving, if any. Idempotent; Stats stay readable.
func (g *Greeter) Stop() error {
	g.stopOnce.Do(g.cancel)
	<-g.done
	return g.err
}
