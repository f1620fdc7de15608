// Package fluidtest holds the grid on which the models are checked: the
// fluid model against the closed forms of docs/model.md, and the
// request-level model against the fluid model. It is for tests.
package fluidtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

// The grid's service: τ_out, seconds, and capacity C, attempts per second.
const (
	TimeoutS     = 10.0
	CapacityPerS = 400.0
)

// Case is one point of the grid: A ∈ {1, 2, 3} (a cap of A − 1 retries),
// A·ρ from the caller's list, k ∈ {5, 10}, Δ ∈ {60 s, 300 s}.
type Case struct {
	Retries int
	// ARho is A·ρ, K the spike's multiplier, SpikeS its duration in
	// seconds, Rho the utilization λ/C.
	ARho, K, SpikeS, Rho float64
}

func (c Case) String() string {
	return fmt.Sprintf("A=%d Aρ=%.1f k=%.0f Δ=%.0fs", c.Retries+1, c.ARho, c.K, c.SpikeS)
}

// Grid is every case for the given values of A·ρ.
func Grid(aRhos []float64) []Case {
	var out []Case
	for _, retries := range []int{0, 1, 2} {
		for _, ar := range aRhos {
			for _, k := range []float64{5, 10} {
				for _, spike := range []float64{60, 300} {
					out = append(out, Case{retries, ar, k, spike, ar / float64(retries+1)})
				}
			}
		}
	}
	return out
}

// Stages is the case's demand: 20 s of warmup, the spike, then observeS.
func (c Case) Stages(observeS float64) []analysis.DemandStage {
	return analysis.SpikeSchedule(c.Rho*CapacityPerS, c.K, 20, c.SpikeS, observeS)
}

// Simulate runs the fluid model on one case, with the retries' lag lagS
// seconds (0: each retry τ_out after its attempt), long enough to recover
// (or 2,000 s when the closed form says it never does).
func Simulate(t testing.TB, c Case, lagS float64) analysis.ModelResult {
	t.Helper()
	pred := analysis.RecoveryTime(float64(c.Retries+1), c.Rho, c.K, c.SpikeS, TimeoutS)
	observe := 2000.0
	if !math.IsInf(pred, 0) {
		observe = 1.5*pred + 200
	}
	res, err := fluid.Simulate(fluid.Config{
		Stages:            c.Stages(observe),
		CapacityPerS:      CapacityPerS,
		TimeoutS:          TimeoutS,
		Retry:             fluid.Retry{MaxRetries: c.Retries},
		RetryLagS:         lagS,
		StepS:             0.01,
		StopWhenRecovered: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Near reports whether got is within relTol of want, relatively.
func Near(got, want, relTol float64) bool {
	return math.Abs(got-want) <= relTol*math.Abs(want)
}
