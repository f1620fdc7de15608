package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// SimulateRequestRuns runs cfg with the seeds cfg.Seed, cfg.Seed + 1, …
// (runs of them, at least one) and returns the median run by recovery time
// with the spread of all. Only one run's timeline is kept: the median run is
// found from the others' summaries and run again (same seed, same result).
func SimulateRequestRuns(ctx context.Context, cfg RequestConfig, runs int) (ModelResult, RunSpread, error) {
	runs = max(runs, 1)
	type summary struct {
		seed     uint64
		recovery float64
	}
	sums := make([]summary, 0, runs)
	sp := RunSpread{Runs: runs, FirstSeed: cfg.Seed, Verdicts: map[Verdict]int{}, PeakWaitMinS: math.Inf(1)}
	var last ModelResult
	for i := range runs {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		res, err := SimulateRequests(ctx, c)
		if err != nil {
			return ModelResult{}, sp, fmt.Errorf("run %d (seed %d): %w", i+1, c.Seed, err)
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
	sp.RecoveryMinS, sp.RecoveryMedianS, sp.RecoveryMaxS = Num(sums[0].recovery), Num(mid.recovery), Num(sums[len(sums)-1].recovery)
	sp.TrappedFraction = float64(sp.Verdicts[VerdictTrapped]) / float64(runs)
	sp.RecoveredFraction = float64(sp.Verdicts[VerdictRecovered]) / float64(runs)
	if last.Seed == mid.seed {
		return last, sp, nil
	}
	c := cfg
	c.Seed = mid.seed
	res, err := SimulateRequests(ctx, c)
	if err != nil {
		return ModelResult{}, sp, fmt.Errorf("median run (seed %d): %w", c.Seed, err)
	}
	return res, sp, nil
}

// SimulateRequestPlan runs the request-level model over the scenario's
// warmup, spike and observation (cfg, built by convert.Test.RequestConfig) and
// returns the plan's document with the median run's observation, verdict
// and timeline, and the spread over the runs when there is more than one
// (`trigger simulate --model request --runs N`). The gate judges the
// median run.
func SimulateRequestPlan(ctx context.Context, in PlanInputs, cfg RequestConfig, runs int) (Document, error) {
	doc := Plan(in)
	res, spread, err := SimulateRequestRuns(ctx, cfg, runs)
	if err != nil {
		return doc, err
	}
	doc = WithModelResult(doc, in.Gate, "request", res)
	if runs > 1 {
		doc.Runs = &spread
	}
	return doc, nil
}
