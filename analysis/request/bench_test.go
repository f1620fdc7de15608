package request

import (
	"context"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// benchmarkRequestSim runs 20,000 simulated seconds at about 1,000
// attempts per second against the model's speed goal (under 10 s per run,
// at least 2 million attempts per second on one core), and reports the
// simulated attempts per second of wall time (make bench; the README's
// Benchmarks table has the figures).
func benchmarkRequestSim(b *testing.B, cfg Config, want analysis.Verdict) {
	b.ReportAllocs()
	var attempts int64
	for b.Loop() {
		res, err := Simulate(context.Background(), cfg)
		if err != nil || res.Verdict != want {
			b.Fatalf("%v %s, want %s", err, res.Verdict, want)
		}
		attempts += res.Counts.Attempts + res.Counts.Hidden
	}
	b.ReportMetric(float64(attempts)/b.Elapsed().Seconds(), "attempts/s")
	b.ReportMetric(float64(attempts)/float64(b.N), "attempts/op")
}

// A healthy service: 1,000 first attempts per second at ρ = 0.8 on 4 pods,
// exponential service, no timeout in 20,000 s.
func BenchmarkRequestSim20000sHealthy(b *testing.B) {
	benchmarkRequestSim(b, Config{
		Stages:      []analysis.DemandStage{{DurationS: 20000, RatePerS: 1000}},
		Pods:        4,
		PodRatePerS: 312.5,
		ServiceTime: vocab.ServiceExponential,
		TimeoutS:    1,
		Retry:       capRetries(2, 0),
		Seed:        1,
	}, analysis.VerdictNoTrigger)
}

// A trapped service: 333 first attempts per second with two retries
// (A = 3) on 8 pods of 100/s (A·ρ = 1.25) after a threefold spike, so that
// about 1,000 attempts per second arrive and every one of them times out
// and is retried for 20,000 s: the retry decider and the timeout queue are
// on the path of every attempt.
func BenchmarkRequestSim20000sTrapped(b *testing.B) {
	benchmarkRequestSim(b, Config{
		Stages:      analysis.SpikeSchedule(1000.0/3, 3, 20, 10, 20000-30),
		Pods:        8,
		PodRatePerS: 100,
		ServiceTime: vocab.ServiceExponential,
		TimeoutS:    1,
		Retry:       capRetries(2, 0),
		Seed:        1,
	}, analysis.VerdictTrapped)
}
