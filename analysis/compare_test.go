package analysis

import "testing"

func doc(verdict Verdict, recovery, a, lo, hi float64) Document {
	d := Document{Verdict: verdict, Scenario: ScenarioSection{Name: "s", Hash: "h", Target: "http://t", DemandPerS: 50, Multiplier: 5, SpikeS: 10, TimeoutS: 1}}
	d.RecoveryS = Num(recovery)
	d.Amplification = AmplificationSection{Measured: Num(a), MeasuredLo: Num(lo), MeasuredHi: Num(hi)}
	d.Observation = &Observation{}
	return d
}

// A difference regresses only when the intervals do not overlap and it
// passes its threshold; a worse verdict regresses; different tests are not
// comparable.
func TestCompare(t *testing.T) {
	base := doc(VerdictRecovered, 20, 3, 2.9, 3.1)
	for _, tc := range []struct {
		name                  string
		cand                  Document
		regressed, comparable bool
	}{
		{"same", base, false, true},
		{"recovery within noise", doc(VerdictRecovered, 21.5, 3, 2.9, 3.1), false, true},           // [20.5, 22.5] overlaps [19, 21]
		{"recovery beyond noise, under 20 %", doc(VerdictRecovered, 23, 3, 2.9, 3.1), false, true}, // +15 %
		{"recovery 30 % slower", doc(VerdictRecovered, 26, 3, 2.9, 3.1), true, true},
		{"A_fail beyond noise and 10 %", doc(VerdictRecovered, 20, 3.5, 3.4, 3.6), true, true},
		{"A_fail 15 % within noise", doc(VerdictRecovered, 20, 3.45, 3.0, 3.9), false, true},
		{"trapped", doc(VerdictTrapped, 0, 3, 2.9, 3.1), true, true},
		{"faster", doc(VerdictRecovered, 10, 2, 1.9, 2.1), false, true},
	} {
		if tc.name == "trapped" {
			tc.cand.RecoveryS = nil
		}
		c := Compare(base, tc.cand, DefaultCompareThresholds)
		if c.Regressed != tc.regressed || c.Comparable != tc.comparable {
			t.Errorf("%s: regressed %v comparable %v; want %v %v", tc.name, c.Regressed, c.Comparable, tc.regressed, tc.comparable)
		}
	}
	other := doc(VerdictRecovered, 20, 3, 2.9, 3.1)
	other.Scenario.Hash, other.Scenario.DemandPerS = "g", 60
	if c := Compare(base, other, DefaultCompareThresholds); c.Comparable || len(c.NotComparable) != 2 {
		t.Errorf("another scenario at another λ: %+v", c.NotComparable)
	}
	inc := doc(VerdictInconclusive, 0, 3, 2.9, 3.1)
	if c := Compare(base, inc, DefaultCompareThresholds); c.Comparable {
		t.Error("an inconclusive candidate compared")
	}
}

// A figure a run did not measure says which: neither run, the baseline,
// or the candidate; it is never compared, never regressed.
func TestCompareNamesWhichRunDidNotMeasure(t *testing.T) {
	base := doc(VerdictRecovered, 20, 3, 2.9, 3.1)
	cand := doc(VerdictRecovered, 20, 3, 2.9, 3.1)
	base.Observation.PeakWaitS, cand.Observation.PeakWaitS = nil, nil
	base.Observation.LostWorkS, cand.Observation.LostWorkS = nil, Num(4)
	base.Observation.FailedRequests, cand.Observation.FailedRequests = Num(7), nil
	want := map[string]string{
		"peak_wait_s":     "not measured in either run",
		"lost_work_s":     "not measured in the baseline",
		"failed_requests": "not measured in the candidate",
	}
	for _, f := range Compare(base, cand, DefaultCompareThresholds).Figures {
		if w, ok := want[f.Name]; ok && (f.Note != w || f.Diff != nil || f.Regressed) {
			t.Errorf("%s: note %q, diff %v, regressed %v; want %q, no difference", f.Name, f.Note, f.Diff, f.Regressed, w)
		}
	}
}
