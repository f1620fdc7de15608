package analysis

import (
	"math"
	"testing"
)

// Calibrate takes what the run measured and keeps the rest: C and λ from
// the run, the gateway the scenario believes in replaced by the measured
// hidden factor, a what-if's own figures untouched, and a note for each
// figure kept.
func TestCalibrate(t *testing.T) {
	in := PlanInputs{
		Scenario: ScenarioSection{DemandPerS: 50, CapacityPerS: 200, TimeoutS: 1, Multiplier: 5, SpikeS: 10},
		Layers:   []RetryLayer{{Name: "client", MaxRetries: 2}, {Name: "gateway", MaxRetries: 1}},
	}
	run := Document{Kind: "run", Observation: &Observation{CapacityPerS: Num(180), CapacitySource: "served", BaselinePerS: Num(49), PatienceS: Num(0.5)}}
	run.Amplification.Hidden = Num(1.5)
	out, cal := Calibrate(in, run, CalibrateKeep{})
	if out.Scenario.CapacityPerS != 180 || out.Scenario.DemandPerS != 49 || len(out.Layers) != 2 || out.Layers[0].Name != "client" {
		t.Fatalf("calibrated %+v", out)
	}
	if a := out.amplification().Predicted; math.Abs(a-4.5) > 1e-9 {
		t.Errorf("A = %g; want the client's 3 × the measured 1.5", a)
	}
	if out.Layers[1].TimeoutS != 0.5 || cal.PatienceS != 0.5 || cal.String() != "C = 180/s, λ = 49/s, hidden retries ×1.5, patience 0.5 s" {
		t.Errorf("calibration %q, hidden layer %+v", cal, out.Layers[1])
	}
	if in.Scenario.CapacityPerS != 200 || len(in.Layers) != 2 || in.Layers[1].Name != "gateway" {
		t.Error("Calibrate changed its input")
	}
	kept, cal := Calibrate(in, run, CalibrateKeep{Capacity: true, Layers: true})
	if kept.Scenario.CapacityPerS != 200 || kept.Layers[1].Name != "gateway" || kept.Scenario.DemandPerS != 49 || len(cal.Notes) != 3 {
		t.Errorf("a what-if's figures: %+v, notes %v", kept, cal.Notes)
	}
	// A document from anywhere: absurd figures are kept out, with notes.
	wild := Document{Kind: "run", Observation: &Observation{CapacityPerS: Num(1e300), CapacitySource: "served", BaselinePerS: Num(math.Inf(1))}}
	wild.Amplification.Hidden = Num(1e300)
	kept, cal = Calibrate(in, wild, CalibrateKeep{})
	if kept.Scenario.CapacityPerS != 200 || kept.Scenario.DemandPerS != 50 || kept.Layers[1].Name != "gateway" || len(cal.Notes) != 3 {
		t.Errorf("absurd figures taken: %+v, notes %v", kept.Scenario, cal.Notes)
	}
	none, cal := Calibrate(in, Document{Kind: "run", Observation: &Observation{CapacitySource: "scenario", CapacityPerS: Num(200)}}, CalibrateKeep{})
	if none.Scenario.CapacityPerS != 200 || none.Layers[1].Name != "gateway" || len(cal.Notes) != 3 || cal.String() != "nothing measured" {
		t.Errorf("nothing measured: %+v, %q %v", none, cal, cal.Notes)
	}
}
