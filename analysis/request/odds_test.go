package request

import (
	"context"
	"testing"
)

// TrapOdds counts the same runs as simulate --runs: its count is the
// spread's trapped verdicts for the same seeds.
func TestTrapOddsMatchesTheSpread(t *testing.T) {
	cfg := sharingConfig(5, 2, 1) // the example: a twofold spike of 5 s
	_, sp, err := simulateRuns(context.Background(), cfg, 30)
	if err != nil {
		t.Fatal(err)
	}
	p, err := TrapOdds(context.Background(), cfg, 30)
	if err != nil {
		t.Fatal(err)
	}
	if p.Count != sp.Trapped.Count || p.Of != 30 || p.Lo != sp.Trapped.Lo || p.Hi != sp.Trapped.Hi {
		t.Errorf("TrapOdds %+v, spread %+v", p, sp.Trapped)
	}
	if p.Count == 0 || p.Count == 30 {
		t.Errorf("the issue's example near its boundary: %d of 30 trapped, want some but not all", p.Count)
	}
}
