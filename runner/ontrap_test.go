package runner

import "testing"

// Before the wait's trend at a held demand is judged, the run claims
// neither way: a run that ends right after on_trap rate began records a
// trend that is neither falling nor not falling.
func TestHeldTrendUnjudgedClaimsNothing(t *testing.T) {
	h := heldTrend(newOnTrapState(12).held)
	if h.Falling || h.NotFalling || h.Slope != nil || h.Reason == "" {
		t.Errorf("an unjudged trend: %+v", h)
	}
}
