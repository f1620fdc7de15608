package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
)

// Hysteresis at ρ = 0.4 (λ = 80/s, C = 200/s, A = 3): the first cell
// traps, then λ_r is bracketed between zero and the baseline by cells
// that trap the service and hold demand at 40/s and then 60/s, where the
// wait falls (A·λ < C: −0.4 and −0.1 s/s in the model); (60, 80] is
// within precision 0.3 and holds the model's C/A = 66.7/s.
func TestCampaignFindsTheRecoveryDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	url := startSpecimen(t)
	test := loadCampaign(t, campaignScenario(url, `
  baselines  = [0.4]
  from       = 3
  to         = 4
  precision  = 0.3
  rest       = "1s"
  hysteresis = true
`))
	res, err := Run(context.Background(), Options{Test: test, OutDir: t.TempDir(), Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var holds []float64
	for _, c := range res.Document.Cells {
		t.Logf("cell %d %s ×%g, held at %v/s: %s (%s)", c.Index, c.Kind, c.Size, analysis.Value(c.HoldDemandPerS), c.Verdict, c.Note)
		kinds = append(kinds, c.Kind)
		if c.HoldDemandPerS != nil {
			holds = append(holds, *c.HoldDemandPerS)
		}
	}
	if len(kinds) != 3 || kinds[0] != analysis.CellTrigger || kinds[1] != analysis.CellRecoveryDemand || len(holds) != 2 || holds[0] != 40 || holds[1] != 60 {
		t.Fatalf("cells %v held at %v; want a trigger cell, then demand held at 40/s and 60/s", kinds, holds)
	}
	b := res.Document.Baselines[0]
	lo, hi, model := analysis.Value(b.RecoveryDemandPerSLo), analysis.Value(b.RecoveryDemandPerSHi), analysis.Value(b.ModelRecoveryDemandPerS)
	t.Logf("λ_r in (%g, %g], model %g", lo, hi, model)
	if lo != 60 || hi != 80 || !(lo <= model && model <= hi) || analysis.Value(b.RecoveryDemandPerS) != 60 {
		t.Errorf("λ_r %v in (%g, %g]; want (60, 80] around the model's %g", analysis.Value(b.RecoveryDemandPerS), lo, hi, model)
	}
}
