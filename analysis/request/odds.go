package request

import (
	"context"
	"errors"
	"fmt"

	"github.com/trigger-test/trigger/analysis"
)

// DefaultOddsRuns is how many seeded runs the model's P(trap) takes when a
// caller does not say: 0 of 200 bounds it by 1.9 %, 100 of 200 gives
// 43–57 % (docs/model.md, "Trap probability").
const DefaultOddsRuns = 200

// DefaultOddsBudget is the work budget of the trap_probability section,
// in simulated attempts (first attempts, retries and hidden copies): no
// run starts once the runs before it simulated this many, and a scenario
// whose one run would simulate more first attempts gets no figure. About
// half a second of one core; counted in attempts, not wall time, so the
// figure is the same on any machine.
const DefaultOddsBudget int64 = 5_000_000

// TrapOdds is the model's P(trap) for cfg: the share of runs, seeds
// cfg.Seed … cfg.Seed + runs − 1, whose verdict is trapped, with its
// Wilson 95 % interval (analysis.NewProportion). Metastable runs are not
// counted as trapped; the measured odds of repeated trials count the
// same way, so the two compare. runs < 1 means DefaultOddsRuns.
func TrapOdds(ctx context.Context, cfg Config, runs int) (analysis.Proportion, error) {
	if runs < 1 {
		runs = DefaultOddsRuns
	}
	o, err := trapRuns(ctx, cfg, runs, 0)
	if err != nil {
		return analysis.Proportion{}, err
	}
	return analysis.NewProportion(o.trapped, o.runs), nil
}

// oddsRuns is what trapRuns counted.
type oddsRuns struct {
	trapped, runs int
	attempts      int64 // attempts simulated: first attempts, retries, hidden copies
}

// trapRuns runs cfg with seeds cfg.Seed, cfg.Seed + 1, … up to runs
// times, and, with budget > 0, starts no run once the attempts simulated
// reached budget (the first run always runs).
func trapRuns(ctx context.Context, cfg Config, runs int, budget int64) (oddsRuns, error) {
	var o oddsRuns
	for i := range runs {
		if budget > 0 && i > 0 && o.attempts >= budget {
			break
		}
		if err := ctx.Err(); err != nil {
			return o, err
		}
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		res, err := Simulate(ctx, c)
		if err != nil {
			return o, fmt.Errorf("run %d (seed %d): %w", i+1, c.Seed, err)
		}
		o.runs++
		o.attempts += res.Counts.Attempts + res.Counts.Hidden
		if res.Verdict == analysis.VerdictTrapped {
			o.trapped++
		}
	}
	return o, nil
}

// FirstAttemptsPerRun is the first attempts one run of cfg sends on
// average: Σ rate × duration over its stages.
func FirstAttemptsPerRun(cfg Config) float64 {
	n := 0.0
	for _, s := range cfg.Stages {
		n += s.RatePerS * s.DurationS
	}
	return n
}

// OddsSection is the trap_probability section of cfg's document: TrapOdds
// over up to runs seeded runs (< 1: DefaultOddsRuns) from cfg.Seed,
// stopped by the work budget (attempts, < 1: DefaultOddsBudget; the runs
// made are stated). Trapped is null with the reason when the model
// refuses cfg (ErrConfig) or when one run's first attempts alone exceed
// the budget. The error is ctx's, when it ended the runs.
func OddsSection(ctx context.Context, cfg Config, runs int, budget int64) (analysis.TrapProbability, error) {
	if runs < 1 {
		runs = DefaultOddsRuns
	}
	if budget < 1 {
		budget = DefaultOddsBudget
	}
	sec := analysis.TrapProbability{Model: "request", FirstSeed: cfg.Seed, RunsWanted: runs, AttemptBudget: budget}
	if n := FirstAttemptsPerRun(cfg); n > float64(budget) {
		sec.ModelUnavailable = fmt.Sprintf("too costly: one run of the request model sends about %.3g first attempts, more than the work budget of %d simulated attempts (simulate --model request --runs N runs it without a budget)", n, budget)
		return sec, nil
	}
	o, err := trapRuns(ctx, cfg, runs, budget)
	sec.Runs, sec.AttemptsSimulated = o.runs, o.attempts
	switch {
	case errors.Is(err, ErrConfig):
		sec.Runs, sec.AttemptsSimulated = 0, 0
		sec.ModelUnavailable = "the request model cannot run this scenario: " + err.Error()
		return sec, nil
	case err != nil:
		return sec, err
	}
	p := analysis.NewProportion(o.trapped, o.runs)
	sec.Trapped = &p
	if o.runs < runs {
		sec.Note = fmt.Sprintf("the work budget of %d simulated attempts allowed %d of the %d runs", budget, o.runs, runs)
	}
	return sec, nil
}
