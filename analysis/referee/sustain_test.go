package referee

import (
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
)

// The sustaining effect is named from three rates (docs/model.md,
// "Latency laws and what sustains a trap"): the capacity before (here the
// scenario's C = 100/s: no busy seconds), what the service served in the
// failed state, and the work arriving, A·λ with λ = 50/s.
func TestSustainingEffect(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		verdict analysis.Verdict
		a       float64
		served  float64 // NaN: no served query
		want    analysis.SustainingEffect
	}{
		{"retries at full capacity", analysis.VerdictTrapped, 3, 100, analysis.SustainedByRetries},
		{"no retries, capacity lost", analysis.VerdictTrapped, 1, 40, analysis.SustainedByLostCapacity},
		{"retries and capacity lost", analysis.VerdictMetastable, 3, 40, analysis.SustainedByBoth},
		{"retries, served not read", analysis.VerdictTrapped, 3, nan, analysis.SustainedByRetries},
		{"no retries, served not read", analysis.VerdictTrapped, 1, nan, analysis.SustainedByNotKnown},
		{"neither", analysis.VerdictTrapped, 1, 100, analysis.SustainedByNotKnown},
		{"recovered", analysis.VerdictRecovered, 3, 100, ""},
	} {
		r := unitReferee(1)
		in := infer.Inference{BaselinePerS: 50, A: infer.Interval{Value: tc.a, Lo: nan, Hi: nan}, AFrom: infer.FromAFail,
			CapacityPerS: tc.served, CapacitySource: "served"}
		if math.IsNaN(tc.served) {
			in.CapacityPerS, in.CapacitySource = 100, "scenario"
		}
		s := r.sustaining(tc.verdict, in, analysis.AssumedLaw(100, ""))
		if tc.want == "" {
			if s != nil {
				t.Errorf("%s: %+v, want none", tc.name, s)
			}
			continue
		}
		if s == nil || s.Effect != tc.want {
			t.Errorf("%s: %+v, want %s", tc.name, s, tc.want)
			continue
		}
		if s.Note == "" || analysis.Value(s.CapacityBeforePerS) != 100 || analysis.Value(s.ArrivingPerS) != 50*tc.a {
			t.Errorf("%s: %+v", tc.name, s)
		}
		if math.IsNaN(tc.served) != (s.CapacityFailedPerS == nil) {
			t.Errorf("%s: capacity in the failed state %v, want it only when served was read", tc.name, s.CapacityFailedPerS)
		}
	}
}

// The run's advice drops the plan's "stays failed" when the service
// recovered, and never recommends an admission bound to a service that
// has one.
func TestAdviceFollowsTheMeasurements(t *testing.T) {
	trap := "A·ρ = 1.20 ≥ 1: once triggered the service stays failed. To escape, … or refuse work at the door with an admission bound b < τ_out"
	other := "the trigger margin is only 1.20"
	r := unitReferee(1)
	r.plan.Prediction.Recommendations = []string{trap, other}
	doc := &analysis.Document{Verdict: analysis.VerdictRecovered, Observation: &analysis.Observation{}}
	got := r.advice(doc, infer.Inference{BaselinePerS: 50})
	if len(got) != 1 || got[0] != other {
		t.Errorf("recovered: %q", got)
	}
	r.plan.Scenario.AdmissionBoundS = 0.5
	doc.Verdict = analysis.VerdictTrapped
	doc.Observation.SustainedBy = &analysis.Sustaining{Effect: analysis.SustainedByRetries, CapacityBeforePerS: analysis.Num(100.0), ArrivingPerS: analysis.Num(150.0)}
	for _, a := range r.advice(doc, infer.Inference{BaselinePerS: 50}) {
		if strings.Contains(a, "admission bound") {
			t.Errorf("advice for a service with an admission bound recommends one: %q", a)
		}
	}
}
