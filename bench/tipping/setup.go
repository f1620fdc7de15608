package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// setup is the collapse law's server and its clients (docs/model.md, "The
// collapse law"), time-compressed: one exponential server of rate Mu, FIFO,
// timed-out work served anyway, Poisson first attempts, a per-attempt
// timeout of Theta service times, at most Attempts attempts per request,
// each retry sent Backoff service times after its attempt timed out. A
// trial watches Horizon service times and counts as collapsed once the
// wait passes CollapseWait timeouts (request.TippingConfig's definition).
type setup struct {
	Mu           float64 // service rate, per second
	Theta        float64 // θ = μ·T
	Attempts     int     // R, attempts per request in total
	Backoff      float64 // delay from a timeout to its retry, service times
	Horizon      float64 // service times each trial watches
	CollapseWait float64 // timeouts of wait that count as collapse
	// Floor is L₀, the loopback path's own latency (measureFloor): the
	// clients' timeout is T + L₀, so that the service may take T.
	Floor time.Duration
}

// serviceTime is 1/μ as a duration.
func (s setup) serviceTime() time.Duration {
	return time.Duration(float64(time.Second) / s.Mu)
}

// times converts service times to a duration.
func (s setup) times(n float64) time.Duration {
	return time.Duration(n * float64(s.serviceTime()))
}

// lambdaC is the collapse ceiling λ_c, per second.
func (s setup) lambdaC() float64 {
	lc, _ := analysis.CollapseCeiling(s.Mu, s.Theta)
	return lc
}

// collapseDepth is the queue, in requests, whose wait is CollapseWait
// timeouts: the specimen's FIFO queue of n requests holds n/μ seconds of
// work on average.
func (s setup) collapseDepth() int64 {
	return int64(math.Ceil(s.CollapseWait * s.Theta))
}

// server is the specimen configured as the collapse law's server: one pod
// of rate μ, exponential service times, a shared FIFO queue, no deadline
// propagation, no cancellation on disconnect (timed-out work is served),
// a queue bound far above the collapse depth.
func (s setup) server(seed uint64) specimen.Config {
	return specimen.Config{
		Pods: 1, PodRate: s.Mu, ServiceTime: vocab.ServiceExponential,
		QueueMode: vocab.QueueShared, MaxQueue: 100000, Seed: seed,
	}
}

// policy is the clients' retry policy: Attempts − 1 retries of timeouts
// (and of the errors a healthy loopback never gives), each after a
// constant backoff without jitter.
func (s setup) policy() retry.Policy {
	return retry.Policy{
		MaxRetries: s.Attempts - 1,
		On:         retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome5xx, vocab.Outcome503, vocab.OutcomeConnect),
		Backoff:    retry.Backoff{Kind: vocab.BackoffConstant, Base: s.times(s.Backoff), Max: s.times(s.Backoff)},
	}
}

// driver is trigger's driver offering load (per second) to url for the
// horizon.
func (s setup) driver(url string, load float64, seed uint64) (*loadgen.Driver, error) {
	return loadgen.NewDriver(loadgen.Config{
		Request:     loadgen.Request{Method: "GET", URL: url + "/work"},
		Stages:      []loadgen.Stage{loadgen.Constant(s.times(s.Horizon), load)},
		Arrivals:    vocab.Poisson,
		Seed:        seed,
		Timeout:     s.times(s.Theta) + s.Floor,
		Retry:       s.policy(),
		MaxInFlight: 20000,
	})
}

// model is the request model's sweep of the same setup: fractions of
// runs collapsed at loads given as fractions of λ_c.
func (s setup) model(ctx context.Context, fractions []float64, runs int) (request.TippingResult, error) {
	lc, _ := analysis.CollapseCeiling(1, s.Theta)
	loads := make([]float64, len(fractions))
	for i, f := range fractions {
		loads[i] = f * lc
	}
	res, err := request.TippingSweep(ctx, request.TippingConfig{
		Theta: s.Theta, Attempts: s.Attempts, Loads: loads, Runs: runs,
		HorizonS: s.Horizon, CollapseWait: s.CollapseWait, BackoffS: s.Backoff, Seed: 1,
	})
	if err != nil {
		return res, fmt.Errorf("model: %w", err)
	}
	return res, nil
}
