package request

import (
	"context"
	"strings"
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

// The trap_probability section: the same count as TrapOdds when the
// budget does not bind; a budget in attempts stops the runs at the same
// run every time and says so; a configuration the model refuses, or one
// whose single run costs more than the budget, gives no figure but the
// reason.
func TestOddsSection(t *testing.T) {
	ctx := context.Background()
	cfg := sharingConfig(5, 2, 1)
	p, err := TrapOdds(ctx, cfg, 30)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := OddsSection(ctx, cfg, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Trapped == nil || *sec.Trapped != p || sec.Runs != 30 || sec.RunsWanted != 30 || sec.FirstSeed != 1 ||
		sec.AttemptBudget != DefaultOddsBudget || sec.Note != "" || sec.ModelUnavailable != "" || sec.AttemptsSimulated <= 0 {
		t.Errorf("section %+v; want TrapOdds' %+v over 30 runs", sec, p)
	}

	// A budget of ten runs' attempts stops it after about ten.
	budget := sec.AttemptsSimulated / 3
	a, err := OddsSection(ctx, cfg, 30, budget)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := OddsSection(ctx, cfg, 30, budget)
	if a.Trapped == nil || a.Runs >= 30 || a.Runs < 5 || a.Trapped.Of != a.Runs || a.AttemptsSimulated < budget || a.Note == "" {
		t.Errorf("budgeted section %+v; want fewer runs, stated", a)
	}
	if a.Runs != b.Runs || *a.Trapped != *b.Trapped || a.AttemptsSimulated != b.AttemptsSimulated {
		t.Errorf("the budget stopped at %d then %d runs; want the same", a.Runs, b.Runs)
	}

	// One run's first attempts (40/s for 75 s and 80/s for 5 s) past the budget.
	costly, err := OddsSection(ctx, cfg, 30, 1000)
	if err != nil || costly.Trapped != nil || !strings.Contains(costly.ModelUnavailable, "too costly") || costly.Runs != 0 {
		t.Errorf("costly section %+v, %v; want null, too costly", costly, err)
	}

	bad := cfg
	bad.FloorS = bad.TimeoutS // the floor at the timeout: the model refuses it
	refused, err := OddsSection(ctx, bad, 30, 0)
	if err != nil || refused.Trapped != nil || !strings.Contains(refused.ModelUnavailable, "latency floor") {
		t.Errorf("refused section %+v, %v; want null with the model's reason", refused, err)
	}

	cancelled, stop := context.WithCancel(ctx)
	stop()
	if _, err := OddsSection(cancelled, cfg, 30, 0); err == nil {
		t.Error("a cancelled context gave a section; want its error")
	}
}
