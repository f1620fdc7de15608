package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func line(n int, slope, intercept, noise float64, seed uint64) (ts, ws []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		t := float64(i)
		ts = append(ts, t)
		ws = append(ws, intercept+slope*t+noise*rng.NormFloat64())
	}
	return ts, ws
}

func TestFitTrend(t *testing.T) {
	ts, ws := line(50, -0.25, 20, 0, 1)
	tr := FitTrend(ts, ws)
	if !near(tr.Slope, -0.25, 1e-12) || !near(tr.Intercept, 20, 1e-12) || tr.SlopeStdErr > 1e-12 || tr.N != 50 {
		t.Errorf("exact line: %+v", tr)
	}
	ts, ws = line(200, 0.2, 40, 0.5, 2)
	ws[10] = math.NaN() // skipped
	tr = FitTrend(ts, ws)
	if math.Abs(tr.Slope-0.2) > 4*tr.SlopeStdErr || tr.N != 199 || tr.SlopeStdErr <= 0 {
		t.Errorf("noisy line: %+v", tr)
	}
	if FitTrend([]float64{1}, []float64{2}).N != 1 {
		t.Error("one sample")
	}
}

func TestJudgeTrend(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n            int
		slope, noise float64
		budget       float64
		decided      bool
		verdict      Verdict
	}{
		// A·ρ = 1.2: the wait grows at 0.2 s/s; five clean samples suffice.
		{"trapped", 5, 0.2, 0.05, 0, true, VerdictTrapped},
		// A·ρ = 1 exactly: flat; undecided at first, trapped once patient.
		{"flat early", 5, 0, 0.3, 0, false, ""},
		{"flat patient", 30, 0, 0.3, 0, true, VerdictTrapped},
		// Falling at 0.25 s/s from 20 s: about 80 s to go, within a 120 s budget: wait and see.
		{"recovering", 8, -0.25, 0.05, 120, false, ""},
		// Falling at 0.01 s/s: thousands of seconds, over a 120 s budget: metastable now.
		{"slow", 8, -0.01, 0.001, 120, true, VerdictMetastable},
		// The same without a budget: no early verdict.
		{"slow without budget", 8, -0.01, 0.001, 0, false, ""},
		// Too few samples: nothing yet.
		{"too few", 3, 0.5, 0, 0, false, ""},
	} {
		ts, ws := line(tc.n, tc.slope, 20, tc.noise, 3)
		v := JudgeTrend(ts, ws, float64(tc.n), ws[len(ws)-1], 1, 0.25, tc.budget, TrendPolicy{})
		if v.Decided != tc.decided || v.Verdict != tc.verdict {
			t.Errorf("%s: decided %v verdict %q (%s, %+v); want %v %q", tc.name, v.Decided, v.Verdict, v.Reason, v.Trend, tc.decided, tc.verdict)
		}
	}
	// The projection of a falling wait: 20 s falling at 0.25 s/s to τ = 1 s
	// takes 76 s, then 1 s at 1 − ρ = 0.75 takes 1.33 s.
	ts, ws := line(10, -0.25, 22.25, 0, 4)
	v := JudgeTrend(ts, ws, 10, 20, 1, 0.25, 0, TrendPolicy{})
	if !near(v.ProjectedS, 10+76+1/0.75, 1e-9) || !(v.ProjectedLoS < v.ProjectedS && v.ProjectedS < v.ProjectedHiS) {
		t.Errorf("projection %v [%v, %v]", v.ProjectedS, v.ProjectedLoS, v.ProjectedHiS)
	}
}

// An unknown utilization (no baseline measured) projects nothing, so it
// must not make a falling wait metastable.
func TestJudgeTrendUnknownUtilization(t *testing.T) {
	ts, ws := line(8, -0.25, 20, 0.01, 5)
	if v := JudgeTrend(ts, ws, 8, ws[7], 1, math.NaN(), 30, TrendPolicy{}); v.Decided {
		t.Errorf("decided %s with ρ unknown: %s", v.Verdict, v.Reason)
	}
}
