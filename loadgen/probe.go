package loadgen

import (
	"context"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// ProbeResult is what one probe came back with.
type ProbeResult struct {
	// Method and URL of the request sent (the first of a mix), its
	// per-request values filled in as for a first attempt; for a gRPC
	// call, "gRPC /package.Service/Method".
	Method, URL string
	// Status is the response's status, read to its end; 0 when none was.
	Status int
	// Outcome is its class as the driver counts it (Config.OKStatus).
	Outcome vocab.Outcome
	// Latency is how long it took, from sending to its end.
	Latency time.Duration
	// GRPC says the request was a gRPC call (Status then stands for its
	// class, GRPCCodeOutcome's, not an HTTP status the server sent).
	GRPC bool
}

// Probe sends one request, exactly as the driver sends a first attempt of
// cfg (its request, or the first of its mix, with per-request values
// filled in, the tracking headers, TLS and protocol, within cfg.Timeout),
// and nothing else: no retry, no tracer, no schedule. It is the answer of
// `trigger check` to "does the target answer?". Its connections are closed
// when it returns. The error is a configuration the driver refuses.
func Probe(ctx context.Context, cfg Config) (ProbeResult, error) {
	cfg.Stages, cfg.Tracers, cfg.Retry, cfg.Registerer = nil, nil, retry.Policy{}, nil
	if len(cfg.Mix) > 0 {
		cfg.Mix = cfg.Mix[:1]
	}
	d, err := NewDriver(cfg)
	if err != nil {
		return ProbeResult{}, err
	}
	if ci, ok := d.rt.(interface{ CloseIdleConnections() }); ok && d.ownsRT {
		defer ci.CloseIdleConnections()
	}
	if g, ok := d.path.(*grpcPath); ok {
		if err := g.start(); err != nil {
			return ProbeResult{}, err
		}
		defer g.stop()
	}
	lr := logical{id: 1, attempt: 1}
	r := d.mix.reqs[0]
	res := ProbeResult{Method: r.cfg.Method, URL: r.url.String()}
	switch {
	case r.cfg.GRPC != nil:
		res.Method, res.GRPC = "gRPC "+r.cfg.GRPC.Method, true
	case res.Method == "":
		res.Method = "GET"
	}
	if r.templated {
		if lr.own, err = d.render(lr); err == nil && lr.own.url != nil {
			res.URL = lr.own.url.String()
		}
	}
	start := time.Now()
	res.Outcome, _, res.Status = d.do(ctx, lr, 0, cfg.Timeout, "1")
	res.Latency = time.Since(start)
	return res, nil
}
