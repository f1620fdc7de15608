package request

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/trigger-test/trigger/analysis"
)

// simulateRuns runs cfg with the seeds cfg.Seed, cfg.Seed + 1, …
// (runs of them, at least one) and returns the median run by recovery time
// with the spread of all. Only one run's timeline is kept: the median run is
// found from the others' summaries and run again (same seed, same result).
func simulateRuns(ctx context.Context, cfg Config, runs int) (analysis.ModelResult, analysis.RunSpread, error) {
	runs = max(runs, 1)
	type summary struct {
		seed     uint64
		recovery float64
	}
	sums := make([]summary, 0, runs)
	sp := analysis.RunSpread{Runs: runs, FirstSeed: cfg.Seed, Verdicts: map[analysis.Verdict]int{}, PeakWaitMinS: math.Inf(1)}
	var last analysis.ModelResult
	for i := range runs {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		res, err := Simulate(ctx, c)
		if err != nil {
			return analysis.ModelResult{}, sp, fmt.Errorf("run %d (seed %d): %w", i+1, c.Seed, err)
		}
		sp.Verdicts[res.Verdict]++
		sp.PeakWaitMinS = math.Min(sp.PeakWaitMinS, res.PeakWaitS)
		sp.PeakWaitMaxS = math.Max(sp.PeakWaitMaxS, res.PeakWaitS)
		sums = append(sums, summary{c.Seed, res.RecoveryS})
		last = res
	}
	slices.SortStableFunc(sums, func(a, b summary) int { return cmp.Compare(a.recovery, b.recovery) })
	mid := sums[(len(sums)-1)/2]
	sp.ShownSeed = mid.seed
	sp.RecoveryMinS, sp.RecoveryMedianS, sp.RecoveryMaxS = analysis.Num(sums[0].recovery), analysis.Num(mid.recovery), analysis.Num(sums[len(sums)-1].recovery)
	sp.TrappedFraction = float64(sp.Verdicts[analysis.VerdictTrapped]) / float64(runs)
	sp.Trapped = analysis.NewProportion(sp.Verdicts[analysis.VerdictTrapped], runs)
	sp.RecoveredFraction = float64(sp.Verdicts[analysis.VerdictRecovered]) / float64(runs)
	if last.Seed == mid.seed {
		return last, sp, nil
	}
	c := cfg
	c.Seed = mid.seed
	res, err := Simulate(ctx, c)
	if err != nil {
		return analysis.ModelResult{}, sp, fmt.Errorf("median run (seed %d): %w", c.Seed, err)
	}
	return res, sp, nil
}

// SimulatePlan runs the request-level model over the scenario's
// warmup, spike and observation (cfg, built by convert.Test.Config) and
// returns the plan's document with the median run's observation, verdict
// and timeline, and the spread over the runs when there is more than one
// (`trigger simulate --model request --runs N`). The gate judges the
// median run.
func SimulatePlan(ctx context.Context, in analysis.PlanInputs, cfg Config, runs int) (analysis.Document, error) {
	doc := analysis.Plan(in)
	res, spread, err := simulateRuns(ctx, cfg, runs)
	if err != nil {
		return doc, err
	}
	doc = analysis.WithModelResult(doc, in.Gate, "request", res)
	if runs > 1 {
		doc.Runs = &spread
	}
	return doc, nil
}
