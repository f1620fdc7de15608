package fluid_test

import (
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

// benchmarkFluid20000s simulates 20,000 s of a trapped service (ρ = 0.4,
// A = 3, k = 5, Δ = 10 s, τ_out = 1 s) so that no early stop shortens it.
// The goal: under 100 ms per run at a step of at most 50 ms (make bench;
// the README's Benchmarks table has the figures).
func benchmarkFluid20000s(b *testing.B, step float64) {
	cfg := fluid.Config{
		Stages:       analysis.SpikeSchedule(80, 5, 20, 10, 20000-30),
		CapacityPerS: 200, TimeoutS: 1,
		Retry: fluid.Retry{MaxRetries: 2, BackoffS: []float64{0.1, 0.2}},
		StepS: step,
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := fluid.Simulate(cfg)
		if err != nil || res.Verdict != analysis.VerdictTrapped {
			b.Fatalf("%v %s", err, res.Verdict)
		}
	}
	b.ReportMetric(20000/step*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

func BenchmarkFluid20000sStep50ms(b *testing.B) { benchmarkFluid20000s(b, 0.05) }
func BenchmarkFluid20000sStep10ms(b *testing.B) { benchmarkFluid20000s(b, 0.01) }
