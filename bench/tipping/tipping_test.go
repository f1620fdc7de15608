package main

import (
	"context"
	"math"
	"testing"
	"time"
)

// The short tipping benchmark (make test; make bench-tipping is the long
// one): the specimen configured as the collapse law's server, driven by
// trigger's driver with timeouts and retries after a backoff, collapses in
// every trial above the ceiling (tight timeouts, 1.3 λ_c) and in none far
// below it (patient timeouts, 0.3 λ_c), as the request model does for the
// same setup. It fails if the specimen dropped timed-out work, if the
// driver did not retry, or if the trial did not see the queue grow.
// About 30 s of real time.
func TestShortTippingCurve(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time trials against the specimen (make test runs them in test-e2e)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var patient, tight curve
	for _, c := range curves(250, 500) {
		switch c.Name {
		case "patient":
			patient = c
		case "tight":
			tight = c
		}
	}
	patient.Setup.Horizon = 2000 // 4 s at μ = 500/s: enough to show none falls
	patient.Fractions, patient.Published = []float64{0.3}, []float64{math.NaN()}
	tight.Fractions, tight.Published = []float64{1.3}, []float64{1}
	for _, tc := range []struct {
		c    curve
		want int // trials collapsed of 3
	}{{tight, 3}, {patient, 0}} {
		pts, err := measure(ctx, tc.c, 3, 40, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := pts[0]
		t.Logf("θ = %g at %.2f λ_c: specimen %s, model %s, void %d, median collapse %.2f s",
			tc.c.Setup.Theta, p.Fraction, prop(p.Measured), prop(p.Model), p.Void, p.MedianAtS)
		if p.Measured.Count != tc.want {
			t.Errorf("θ = %g at %.2f λ_c: %d of 3 trials collapsed, want %d", tc.c.Setup.Theta, p.Fraction, p.Measured.Count, tc.want)
		}
		if modelAll := p.Model.Count == p.Model.Of; (tc.want == 3) != modelAll || tc.want == 0 && p.Model.Count != 0 {
			t.Errorf("θ = %g at %.2f λ_c: the model collapsed %d of %d runs, the specimen %d of 3", tc.c.Setup.Theta, p.Fraction, p.Model.Count, p.Model.Of, p.Measured.Count)
		}
		if !p.Holds() {
			t.Errorf("θ = %g at %.2f λ_c: published %v outside %s", tc.c.Setup.Theta, p.Fraction, p.Published, prop(p.Measured))
		}
	}
}

// A trial on the collapse law's server at 1.3 λ_c stops at the collapse,
// which it sees as a queue of the collapse depth, long before the horizon.
func TestTrialStopsAtTheCollapse(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time trials against the specimen")
	}
	s := setup{Mu: 250, Theta: 2, Attempts: 10, Backoff: 10, Horizon: 2000, CollapseWait: 20}
	o, err := trial(t.Context(), s, 1.3*s.lambdaC(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Collapsed || o.MaxDepth < s.collapseDepth() || o.AtS >= s.times(s.Horizon).Seconds() {
		t.Errorf("at 1.3 λ_c: %+v, want collapsed before %v with a queue of at least %d", o, s.times(s.Horizon), s.collapseDepth())
	}
}
