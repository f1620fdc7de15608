package request

import (
	"context"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A latency floor spends part of the patience: a spike whose wait stays
// under τ_out = 1 s ((k·ρ − 1)·Δ = 0.75 s at ρ = 0.5, k = 3, Δ = 1.5 s)
// times nothing out without a floor and times clients out behind a floor
// of 0.5 s, whose wait's patience is τ_out − L₀ = 0.5 s (docs/model.md,
// "Latency laws and what sustains a trap").
func TestFloorSpendsThePatience(t *testing.T) {
	run := func(floor float64) analysis.ModelResult {
		res, err := Simulate(context.Background(), Config{Stages: analysis.SpikeSchedule(100, 3, 5, 1.5, 20), PodRatePerS: 200, Pods: 1, Workers: 1,
			TimeoutS: 1, FloorS: floor, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := run(0); r.Counts.TimedOut > 0 || !math.IsNaN(r.T0S) {
		t.Errorf("no floor: %v attempts timed out, t0 %v", r.Counts.TimedOut, r.T0S)
	}
	if r := run(0.5); r.Counts.TimedOut == 0 {
		t.Errorf("a floor of 0.5 s: no attempt timed out")
	}
	if _, err := Simulate(context.Background(), Config{Stages: analysis.SpikeSchedule(100, 3, 5, 1.5, 20), PodRatePerS: 200, Pods: 1, Workers: 1, TimeoutS: 1, FloorS: 1}); err == nil {
		t.Error("a floor at the timeout is accepted")
	}
}
