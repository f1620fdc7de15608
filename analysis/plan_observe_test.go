package analysis

import (
	"strings"
	"testing"
)

// plan warns when observe is shorter than the recovery it predicts plus
// the recovery hold: a run would end before it can call the service back.
// recovers.hcl's numbers predict 67 s.
func TestPlanWarnsObserveShorterThanRecovery(t *testing.T) {
	in := func(observeS float64) PlanInputs {
		return PlanInputs{Scenario: ScenarioSection{DemandPerS: 50, CapacityPerS: 200, Multiplier: 5, SpikeS: 10, TimeoutS: 1, ObserveS: observeS},
			Layers: []RetryLayer{{Name: "client", MaxRetries: 2}}, RecoveryHoldS: 10}
	}
	warns := func(doc Document) bool {
		for _, r := range doc.Prediction.Recommendations {
			if strings.Contains(r, "shorter than the predicted recovery") {
				return true
			}
		}
		return false
	}
	if doc := Plan(in(70)); !warns(doc) {
		t.Errorf("observe 70 s < 67 s + 10 s: no warning in %q", doc.Prediction.Recommendations)
	}
	if doc := Plan(in(180)); warns(doc) {
		t.Errorf("observe 3 min: a warning in %q", doc.Prediction.Recommendations)
	}
}
