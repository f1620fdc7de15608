package request

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

// The grid of the fluid model's tests, on which the request-level model is
// checked against it.

// gridCase is one point of the grid the models are checked on:
// A ∈ {1, 2, 3} (a cap of A − 1 retries), A·ρ ∈ {0.5, 0.6, 0.8, 0.9} plus
// trapped points, k ∈ {5, 10}, Δ ∈ {60 s, 300 s}, τ_out = 10 s.
type gridCase struct {
	retries             int
	aRho, k, spike, rho float64
}

func (g gridCase) String() string {
	return fmt.Sprintf("A=%d Aρ=%.1f k=%.0f Δ=%.0fs", g.retries+1, g.aRho, g.k, g.spike)
}

func grid(aRhos []float64) []gridCase {
	var out []gridCase
	for _, retries := range []int{0, 1, 2} {
		for _, ar := range aRhos {
			for _, k := range []float64{5, 10} {
				for _, spike := range []float64{60, 300} {
					out = append(out, gridCase{retries, ar, k, spike, ar / float64(retries+1)})
				}
			}
		}
	}
	return out
}

const gridTimeout, gridCapacity = 10.0, 400.0

// simulateGrid runs one grid point long enough to recover (or 2,000 s when
// the closed form says it never does).
func simulateGrid(t testing.TB, g gridCase, lagS float64) analysis.ModelResult {
	t.Helper()
	pred := analysis.RecoveryTime(float64(g.retries+1), g.rho, g.k, g.spike, gridTimeout)
	observe := 2000.0
	if !math.IsInf(pred, 0) {
		observe = 1.5*pred + 200
	}
	res, err := fluid.Simulate(fluid.Config{
		Stages:            analysis.SpikeSchedule(g.rho*gridCapacity, g.k, 20, g.spike, observe),
		CapacityPerS:      gridCapacity,
		TimeoutS:          gridTimeout,
		Retry:             fluid.Retry{MaxRetries: g.retries},
		RetryLagS:         lagS,
		StepS:             0.01,
		StopWhenRecovered: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Both models write the one timeline row: the phases from the spike, what
// they know (first attempts, retries, failed first attempts by class,
// ingress, the wait) and nothing they do not (tracers, pods, connections).
func TestModelTimelineRows(t *testing.T) {
	in := analysis.PlanInputs{
		Scenario: analysis.ScenarioSection{Name: "recovers", DemandPerS: 50, CapacityPerS: 200, Multiplier: 5,
			SpikeS: 10, WarmupS: 20, ObserveS: 90, TimeoutS: 1},
		Layers: []analysis.RetryLayer{{Name: "client", MaxRetries: 2}},
	}
	fl, err := fluid.SimulatePlan(in, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	req, err := SimulatePlan(context.Background(), in, Config{
		Stages:      analysis.SpikeSchedule(50, 5, 20, 10, 90),
		SpikeStartS: 20, SpikeEndS: 30, Pods: 1, Workers: 1, PodRatePerS: 200, TimeoutS: 1, Retry: capRetries(2, 0),
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []analysis.Document{fl, req} {
		phases := map[string]int{}
		failedFirst := 0.0
		for i, m := range doc.Timeline {
			phases[m.Phase]++
			if math.Abs(m.IngressPerS-(m.Sent+m.Retries)) > 1e-9 || m.Planned != m.Sent || m.FirstDone != m.Sent {
				t.Fatalf("%s row %d: ingress %v ≠ first %v + retries %v (no hidden layer)", doc.Model, i, m.IngressPerS, m.Sent, m.Retries)
			}
			if !math.IsNaN(m.Pods) || !math.IsNaN(m.TracerWaitS) || !math.IsNaN(m.FirstConnect) || !math.IsNaN(m.LatencyP50S) {
				t.Fatalf("%s row %d: a model has no pods, tracers, latencies or connections: %+v", doc.Model, i, m)
			}
			failedFirst = max(failedFirst, m.FirstTimeouts)
		}
		if failedFirst <= 0 {
			t.Errorf("%s: no failed first attempts", doc.Model)
		}
		if n := len(doc.Timeline); phases["warmup"] != 20 || phases["spike"] != 10 || phases["observe"] != n-30 {
			t.Errorf("%s: phases %v", doc.Model, phases)
		}
	}
}

func near(got, want, relTol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= relTol*math.Max(math.Abs(want), 1e-12)
}
