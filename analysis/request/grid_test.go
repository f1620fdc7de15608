package request

import (
	"context"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

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
		phases := map[analysis.Phase]int{}
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
