package request

import (
	"context"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The sweep reproduces the collapse law: for its M/M/1 service with
// unlimited retries, at θ = 5 and θ = 2, half the runs have collapsed
// within the horizon at a load at or below λ_c, and every run above λ_c
// collapses (docs/model.md, "The collapse law": above λ_c no policy keeps
// the good state; below it, falling is a matter of chance).
func TestTippingSweepCollapseLaw(t *testing.T) {
	for _, theta := range []float64{5, 2} {
		res, err := TippingSweep(context.Background(), TippingConfig{Theta: theta, Runs: 20, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		lc, _ := analysis.CollapseCeiling(1, theta)
		if res.LambdaC != lc || !res.Hysteresis || res.RecoveryThreshold != 0 {
			t.Errorf("θ = %v: λ_c %v (want %v), hysteresis %v, λ_r %v", theta, res.LambdaC, lc, res.Hysteresis, res.RecoveryThreshold)
		}
		if res.Tipping50 == nil || *res.Tipping50 > lc {
			t.Errorf("θ = %v: 50 %% tipping point %v, want at or below λ_c = %.4f", theta, analysis.Value(res.Tipping50), lc)
		}
		above := 0
		for _, p := range res.Points {
			t.Logf("θ = %v: λ/μ = %.4f (%.2f λ_c): %2d/%d collapsed, median after %.0f service times", theta, p.Load, p.Load/lc, p.Collapsed, p.Runs, analysis.Value(p.MedianCollapse))
			if p.Load > lc {
				above++
				if p.Collapsed != p.Runs {
					t.Errorf("θ = %v: λ/μ = %.4f > λ_c: %d of %d runs collapsed, want all", theta, p.Load, p.Collapsed, p.Runs)
				}
			}
		}
		if above < 3 {
			t.Errorf("θ = %v: only %d loads above λ_c swept", theta, above)
		}
	}
}

// A long timeout keeps a lightly loaded server up: at θ = 50 and λ = λ_c/2
// no run collapses, while above λ_c runs do.
func TestTippingSweepLongTimeout(t *testing.T) {
	lc, _ := analysis.CollapseCeiling(1, 50)
	res, err := TippingSweep(context.Background(), TippingConfig{Theta: 50, Runs: 10, Seed: 3, HorizonS: 5000, Loads: []float64{0.5 * lc, 1.3 * lc}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Points[0].Collapsed != 0 || res.Points[1].Collapsed == 0 {
		t.Errorf("θ = 50: %d/10 collapsed at λ_c/2, %d/10 at 1.3 λ_c; want none, some", res.Points[0].Collapsed, res.Points[1].Collapsed)
	}
}

func TestTippingPointInterpolation(t *testing.T) {
	pts := func(fr ...float64) []TippingPoint {
		var out []TippingPoint
		for i, f := range fr {
			out = append(out, TippingPoint{Load: 0.1 * float64(i+1), Fraction: f})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		pts  []TippingPoint
		want float64 // NaN: none
	}{
		{"between points", pts(0, 0.25, 0.75, 1), 0.25},    // halfway from 0.2 to 0.3
		{"on a point", pts(0, 0.5, 1), 0.2},                // reaches exactly 0.5 at 0.2
		{"from the start", pts(0.6, 1), 0.1},               // the first load already tips
		{"never", pts(0, 0.1, 0.4), math.NaN()},            // no load reaches half
		{"first crossing", pts(0, 0.6, 0.2, 0.9), 0.18333}, // non-monotone: the first crossing counts
	} {
		got := analysis.Value(tippingPoint(tc.pts, 0.5))
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-4 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTippingConfigErrors(t *testing.T) {
	for name, cfg := range map[string]TippingConfig{
		"no theta":         {},
		"negative runs":    {Theta: 1, Runs: -1},
		"zero load":        {Theta: 1, Loads: []float64{0}},
		"negative backoff": {Theta: 1, BackoffS: -1},
		"NaN backoff":      {Theta: 1, BackoffS: math.NaN()},
		"endless backoff":  {Theta: 1, BackoffS: math.Inf(1)},
	} {
		if _, err := TippingSweep(context.Background(), cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A backoff between a timeout and its retry lets the queue drain before
// the retry comes: at θ = 2 and two thirds of λ_c, with ten attempts and a
// 2,000-service-time horizon, instant retries collapse every run, retries
// 10 service times later only about half of them (bench/tipping's tight
// curve), and every run still collapses above λ_c. The result says the
// backoff it ran with.
func TestTippingSweepBackoff(t *testing.T) {
	lc, _ := analysis.CollapseCeiling(1, 2)
	sweep := func(backoff float64) TippingResult {
		res, err := TippingSweep(context.Background(), TippingConfig{Theta: 2, Attempts: 10, BackoffS: backoff,
			HorizonS: 2000, Runs: 40, Seed: 1, Loads: []float64{2 * lc / 3, 1.3 * lc}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	instant, backoff := sweep(0), sweep(10)
	if instant.Backoff != 0 || backoff.Backoff != 10 {
		t.Errorf("backoff reported %v and %v, want 0 and 10", instant.Backoff, backoff.Backoff)
	}
	if got := instant.Points[0].Fraction; got < 0.9 {
		t.Errorf("instant retries at 2/3 λ_c: %v of runs collapsed, want nearly all", got)
	}
	if got := backoff.Points[0].Fraction; got < 0.25 || got > 0.75 {
		t.Errorf("retries after 10 service times at 2/3 λ_c: %v of runs collapsed, want about half", got)
	}
	for _, res := range []TippingResult{instant, backoff} {
		if p := res.Points[1]; p.Collapsed != p.Runs {
			t.Errorf("backoff %v at 1.3 λ_c: %d of %d runs collapsed, want all", res.Backoff, p.Collapsed, p.Runs)
		}
	}
}
