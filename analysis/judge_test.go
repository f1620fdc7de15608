package analysis

import (
	"math"
	"strings"
	"testing"
)

// judgeLine judges n samples, one a second from the spike's end (t = 100),
// of a wait starting at w0 and changing at slope, with Gaussian noise.
func judgeLine(n int, slope, w0, noise, budget float64, final bool) Judgement {
	ts, ws := line(n, slope, w0, noise, 3)
	for i := range ts {
		ts[i] += 100
	}
	return Judge(JudgeInput{Wait: WaitSeries{Source: "service", T: ts, W: ws, ResolutionS: 1},
		SpikeEndS: 100, FailedToS: math.NaN(), HorizonS: 100 + 600, PatienceS: 1, Utilization: 0.25,
		BudgetS: budget, Final: final}, JudgePolicy{})
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n            int
		slope, noise float64
		budget       float64
		final        bool
		want         Verdict
		reason       string // a word the reason must hold
	}{
		// A·ρ = 1.2: the wait grows at 0.2 s/s; eight noisy samples show it.
		{"trapped", 8, 0.2, 0.05, 0, false, VerdictTrapped, "not falling"},
		// A·ρ = 1 exactly: flat. Never trapped on a guess: undecided while
		// watching, and still undecided (cannot tell) at the end.
		{"flat", 30, 0, 0.3, 0, false, "", "not yet significant"},
		{"flat at the end", 30, 0, 0.3, 0, true, "", "cannot tell"},
		// Falling at 0.25 s/s from 20 s: about 80 s to go, within a 120 s budget: wait and see.
		{"recovering", 8, -0.25, 0.05, 120, false, "", "falling"},
		// Falling at 0.01 s/s: thousands of seconds, over a 120 s budget: metastable now.
		{"slow", 8, -0.01, 0.001, 120, false, VerdictMetastable, "budget"},
		// The same without a budget: beyond the 600 s horizon, metastable too.
		{"slow without budget", 8, -0.01, 0.001, 0, false, VerdictMetastable, "observation"},
		// Falling at 0.1 s/s from 20 s: 190 s to go, within the horizon; at the end still failing: metastable.
		{"still falling at the end", 8, -0.1, 0.01, 0, true, VerdictMetastable, "still failing"},
		// Too few samples: nothing yet.
		{"too few", 3, 0.5, 0, 0, false, "", "3 of 4"},
	} {
		j := judgeLine(tc.n, tc.slope, 20, tc.noise, tc.budget, tc.final)
		if j.Verdict != tc.want || !strings.Contains(j.Reason, tc.reason) {
			t.Errorf("%s: verdict %q (%s); want %q with %q", tc.name, j.Verdict, j.Reason, tc.want, tc.reason)
		}
	}
	// The projection of a falling wait: 20 s falling at 0.25 s/s to τ = 1 s
	// takes 76 s, then 1 s at 1 − ρ = 0.75 takes 1.33 s; from the last
	// sample, 9 s after the spike's end.
	j := judgeLine(10, -0.25, 22.25, 0, 0, false)
	if !near(j.ProjectedS, 9+76+1/0.75, 1e-9) || !(j.ProjectedLoS < j.ProjectedS && j.ProjectedS < j.ProjectedHiS) {
		t.Errorf("projection %v [%v, %v]", j.ProjectedS, j.ProjectedLoS, j.ProjectedHiS)
	}
}

// The wait integrated from windowed rates keeps rising for a window after
// the spike although the service recovers: samples inside the signal's
// delay are never judged, so the rise cannot make a false trap.
func TestJudgeIgnoresSamplesBeforeTheSignalSettles(t *testing.T) {
	var ts, ws []float64
	for i := range 40 {
		t := 100 + float64(i)
		w := 10 + 1.0*float64(i) // still rising: the window holds the spike
		if i >= 20 {
			w = 30 - 0.28*float64(i-20) // settled: falling at 1 − A·ρ = 0.28
		}
		ts, ws = append(ts, t), append(ws, w)
	}
	in := JudgeInput{Wait: WaitSeries{Source: "ingress-served", T: ts, W: ws, DelayS: 20, ResolutionS: 1},
		SpikeEndS: 100, FailedToS: math.NaN(), HorizonS: 400, PatienceS: 1, Utilization: 0.08}
	// Watched until 8 s past the delay: falling, undecided, never trapped.
	for end := 4; end <= 28; end++ {
		in.Wait.T, in.Wait.W = ts[:end+1], ws[:end+1]
		j := Judge(in, JudgePolicy{})
		if j.Verdict != "" {
			t.Fatalf("judged %s with samples up to +%d s: %s", j.Verdict, end, j.Reason)
		}
		if end < 20 && (j.Settled || !strings.Contains(j.Reason, "settle")) {
			t.Errorf("+%d s: settled %v (%s); want waiting for the signal to settle", end, j.Settled, j.Reason)
		}
	}
	j := Judge(in, JudgePolicy{})
	if !j.Falling() || !near(j.Trend.Slope, -0.28, 1e-9) {
		t.Errorf("slope %.3f [%.3f, %.3f]; want falling at 0.28 s/s", j.Trend.Slope, j.SlopeLo, j.SlopeHi)
	}
	// Without the delay the same samples would be judged trapped: the
	// reason the delay exists.
	in.Wait.DelayS = 0
	in.Wait.T, in.Wait.W = ts[:12], ws[:12]
	if j := Judge(in, JudgePolicy{}); j.Verdict != VerdictTrapped {
		t.Errorf("without the delay: %s (%s); the test no longer shows the artefact", j.Verdict, j.Reason)
	}
}

// A signal read every second that changes once per 5 s scrape holds one
// independent value per scrape: the fit counts bins, not rows.
func TestJudgeCountsIndependentSamples(t *testing.T) {
	var ts, ws []float64
	for i := range 12 {
		scrape := float64(i / 5 * 5)
		ts, ws = append(ts, 100+float64(i)), append(ws, 10+0.3*scrape)
	}
	in := JudgeInput{Wait: WaitSeries{Source: "service", T: ts, W: ws, ResolutionS: 5},
		SpikeEndS: 100, FailedToS: math.NaN(), HorizonS: 400, PatienceS: 1, Utilization: 0.25}
	j := Judge(in, JudgePolicy{})
	if j.Verdict != "" || j.Trend.N != 3 {
		t.Errorf("12 rows over 3 scrapes: %d points, verdict %q (%s); want 3 points, undecided", j.Trend.N, j.Verdict, j.Reason)
	}
}

// An unknown utilization projects nothing, so it must not make a falling
// wait metastable before the end.
func TestJudgeUnknownUtilization(t *testing.T) {
	ts, ws := line(8, -0.25, 20, 0.01, 5)
	j := Judge(JudgeInput{Wait: WaitSeries{Source: "service", T: ts, W: ws, ResolutionS: 1}, FailedToS: math.NaN(),
		HorizonS: 60, PatienceS: 1, Utilization: math.NaN(), BudgetS: 30}, JudgePolicy{})
	if j.Verdict != "" {
		t.Errorf("judged %s with ρ unknown: %s", j.Verdict, j.Reason)
	}
}

// Samples after the failed state ended (the recovery began) are not fitted.
func TestJudgeStopsAtTheEndOfTheFailedState(t *testing.T) {
	ts, ws := line(20, 0.3, 5, 0, 1)
	for i := 10; i < 20; i++ {
		ws[i] = 0 // recovered
	}
	j := Judge(JudgeInput{Wait: WaitSeries{Source: "service", T: ts, W: ws, ResolutionS: 1}, FailedToS: 10,
		HorizonS: 60, PatienceS: 1, Utilization: 0.25}, JudgePolicy{})
	if j.Verdict != VerdictTrapped || j.Trend.N != 10 {
		t.Errorf("%s over %d points; want trapped over the 10 failed seconds", j.Verdict, j.Trend.N)
	}
}

func TestTQuantile(t *testing.T) {
	for _, tc := range []struct {
		dof  int
		want float64
	}{{1, 12.706}, {2, 4.303}, {10, 2.228}, {30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {1000, 1.962}} {
		if got := TQuantile(tc.dof); math.Abs(got-tc.want) > 0.002 {
			t.Errorf("t(0.975; %d) = %.4f, want %.3f", tc.dof, got, tc.want)
		}
	}
	if !math.IsNaN(TQuantile(0)) {
		t.Error("no degrees of freedom must give NaN")
	}
}
