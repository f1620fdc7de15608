package runner

import (
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The referee's plan is the one result.json records: figures rounded to
// six significant digits, and reading it back again changes nothing.
func TestAsRecordedRoundsThePlan(t *testing.T) {
	in := analysis.PlanInputs{Scenario: analysis.ScenarioSection{DemandPerS: 70, CapacityPerS: 210, Multiplier: 5, SpikeS: 10, TimeoutS: 1, ObserveS: 180},
		Layers: []analysis.RetryLayer{{Name: "client", MaxRetries: 2}}}
	plan := analysis.Plan(in)
	rec := asRecorded(plan)
	if u := rec.Scenario.Utilization; u != analysis.RoundFigure(plan.Scenario.Utilization) || u == plan.Scenario.Utilization {
		t.Errorf("ρ %v recorded as %v; want it rounded", plan.Scenario.Utilization, u)
	}
	if again := asRecorded(rec); again.Scenario.Utilization != rec.Scenario.Utilization || again.Prediction.AmplifiedUtilization != rec.Prediction.AmplifiedUtilization {
		t.Error("reading the recorded plan back changed it")
	}
}
