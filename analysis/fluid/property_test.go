package fluid_test

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

// recoveryPoint draws a recovering configuration: a trigger with A·ρ < 1.
func recoveryPoint(t *rapid.T) (a, rho, k, spike, tau float64) {
	a = rapid.Float64Range(1, 5).Draw(t, "A")
	rho = rapid.Float64Range(0.05, 0.95/a).Draw(t, "rho")
	tau = rapid.Float64Range(0.2, 30).Draw(t, "tau")
	k = rapid.Float64Range(1.2/rho, 20/rho).Draw(t, "k")
	spike = rapid.Float64Range(1.2*analysis.MinSpike(k, rho, tau), 2000).Draw(t, "spike")
	return
}

// The fluid model's recovery time rises with A, ρ, k and Δ too (within two
// integration steps), in delay form. A is varied through the budget, the
// one knob that moves it continuously.
func TestPropertyFluidRecoveryMonotone(t *testing.T) {
	const step = 0.01
	sim := func(t *rapid.T, budget, rho, k, spike float64) float64 {
		res, err := fluid.Simulate(fluid.Config{
			Stages:       analysis.SpikeSchedule(rho*100, k, 5, spike, 5000),
			CapacityPerS: 100, TimeoutS: 1, StepS: step,
			Retry:             fluid.Retry{MaxRetries: 3, HasBudget: true, Budget: budget},
			StopWhenRecovered: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.RecoveryS
	}
	rapid.Check(t, func(t *rapid.T) {
		budget := rapid.Float64Range(0, 1).Draw(t, "budget")
		rho := rapid.Float64Range(0.1, 0.8/(1+budget)).Draw(t, "rho")
		k := rapid.Float64Range(1.5/rho, 6/rho).Draw(t, "k")
		spike := rapid.Float64Range(2*analysis.MinSpike(k, rho, 1), 40).Draw(t, "spike")
		base := sim(t, budget, rho, k, spike)
		if math.IsInf(base, 0) {
			t.Fatalf("A·ρ ≤ 0.8 did not recover")
		}
		grow := rapid.Float64Range(1.02, 1.1).Draw(t, "grow")
		for name, v := range map[string]float64{
			"A":   sim(t, math.Min(budget*grow+0.01, 0.85/rho-1), rho, k, spike),
			"rho": sim(t, budget, math.Min(rho*grow, 0.85/(1+budget)), k, spike),
			"k":   sim(t, budget, rho, k*grow, spike),
			"Δ":   sim(t, budget, rho, k, spike*grow),
		} {
			if v < base-2*step {
				t.Fatalf("raising %s lowered the fluid recovery from %v to %v", name, base, v)
			}
		}
	})
}

// A spike that is not a trigger, (kρ − 1)Δ ≤ τ_out, leaves no timeout.
func TestPropertyNoTriggerNoTimeout(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		retries := rapid.IntRange(0, 4).Draw(t, "retries")
		rho := rapid.Float64Range(0.05, 0.95).Draw(t, "rho")
		tau := rapid.Float64Range(0.2, 10).Draw(t, "tau")
		k := rapid.Float64Range(1.01, 10).Draw(t, "k")
		maxSpike := 100.0
		if k*rho > 1 {
			maxSpike = 0.99 * tau / (k*rho - 1)
		}
		spike := rapid.Float64Range(0.01*maxSpike, maxSpike).Draw(t, "spike")
		if analysis.CheckTrigger(k, rho, spike, tau).Valid {
			t.Fatalf("drew a trigger")
		}
		res, err := fluid.Simulate(fluid.Config{
			Stages:       analysis.SpikeSchedule(rho*100, k, 5, spike, 60+2*spike),
			CapacityPerS: 100, TimeoutS: tau, Retry: fluid.Retry{MaxRetries: retries},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.TimedOut != 0 || res.Abandoned != 0 || res.Verdict != analysis.VerdictNoTrigger {
			t.Fatalf("no trigger, yet %v timeouts, %v abandoned, verdict %s", res.TimedOut, res.Abandoned, res.Verdict)
		}
	})
}
