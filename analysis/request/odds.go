package request

import (
	"context"
	"fmt"

	"github.com/trigger-test/trigger/analysis"
)

// DefaultOddsRuns is how many seeded runs the model's P(trap) takes when a
// caller does not say: 0 of 200 bounds it by 1.9 %, 100 of 200 gives
// 43–57 % (docs/model.md, "Trap probability").
const DefaultOddsRuns = 200

// TrapOdds is the model's P(trap) for cfg: the share of runs, seeds
// cfg.Seed … cfg.Seed + runs − 1, whose verdict is trapped, with its
// Wilson 95 % interval (analysis.NewProportion). Metastable runs are not
// counted as trapped; the measured odds of repeated trials count the
// same way, so the two compare. runs < 1 means DefaultOddsRuns.
func TrapOdds(ctx context.Context, cfg Config, runs int) (analysis.Proportion, error) {
	if runs < 1 {
		runs = DefaultOddsRuns
	}
	trapped := 0
	for i := range runs {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		res, err := Simulate(ctx, c)
		if err != nil {
			return analysis.Proportion{}, fmt.Errorf("run %d (seed %d): %w", i+1, c.Seed, err)
		}
		if res.Verdict == analysis.VerdictTrapped {
			trapped++
		}
	}
	return analysis.NewProportion(trapped, runs), nil
}
