package campaign

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// cell is one planned trigger test: a baseline and a spike size, and for
// a recovery-demand cell the demand held once the service is trapped.
type cell struct {
	kind  string
	rho   float64
	rate  float64 // λ, first attempts per second
	size  float64 // the searched size: a multiplier or seconds
	hold  float64 // recovery_demand: first attempts per second after the trap
	index int
	// trial counts a repeated cell's trials from 1; 0 for a cell of one.
	trial int
}

// seed is the cell's run's seed: the campaign's (0 means 1), and for
// trial t the campaign's + t − 1.
func (c cell) seed(base uint64) uint64 {
	return max(base, 1) + uint64(max(c.trial-1, 0))
}

// trialWord is " (trial t of n)" for a repeated cell, "" otherwise.
func (c cell) trialWord(n int) string {
	if c.trial == 0 {
		return ""
	}
	return fmt.Sprintf(" (trial %d of at most %d)", c.trial, n)
}

// spike is the cell's spike: the searched size in place of the
// scenario's multiplier or duration.
func (c cell) spike(s *scenarios.Scenario) scenarios.Spike {
	sp := s.Load.Spike
	switch s.Campaign.Search {
	case vocab.SearchDuration:
		sp.Duration = time.Duration(c.size * float64(time.Second)).Round(time.Millisecond)
	case vocab.SearchMultiplier:
		sp.Multiplier = c.size
	}
	return sp
}

// folder is the cell's run folder inside the campaign's: its index, ρ
// and size (k2.75, d12.5s) or held demand (hold33.3).
func (c cell) folder(search vocab.SearchKind) string {
	size := fmt.Sprintf("k%.4g", c.size)
	switch {
	case c.kind == analysis.CellRecoveryDemand:
		size = fmt.Sprintf("hold%.4g", c.hold)
	case search == vocab.SearchDuration:
		size = fmt.Sprintf("d%.4gs", c.size)
	case search == vocab.SearchCapacity:
		size = fmt.Sprintf("loss%.4g", c.size)
	}
	if c.trial > 0 {
		size += fmt.Sprintf("-t%d", c.trial)
	}
	return fmt.Sprintf("cell-%02d-rho%.3g-%s", c.index, c.rho, size)
}

// scenarioFor is the scenario a cell runs: the campaign's with the cell's
// baseline and spike; on a trap, demand drops to zero (or, for a
// recovery-demand cell, to the held demand) and the run watches for the
// way back for on_trap's observation. No budget turns a slow recovery
// into a failure (the campaign maps the boundary), no baseline is
// compared with and no webhook is posted.
func scenarioFor(s *scenarios.Scenario, c cell) *scenarios.Scenario {
	cs := *s
	cs.Load.Baseline = c.rate
	cs.Load.Spike = c.spike(s)
	observe := scenarios.DefaultTrapObserve
	if s.OnTrap != nil && s.OnTrap.Observe > 0 {
		observe = s.OnTrap.Observe
	}
	cs.OnTrap = &scenarios.OnTrap{Action: vocab.TrapDrop, Observe: observe}
	if c.kind == analysis.CellRecoveryDemand {
		cs.OnTrap = &scenarios.OnTrap{Action: vocab.TrapRate, Rate: c.hold, Observe: observe}
	}
	cs.Gate = scenarios.Gate{AllowTrap: true}
	cs.Notify = nil
	// A longer spike than the scenario's own gets the time it takes on
	// top of the scenario's bound.
	if extra := cs.Load.Spike.Duration - s.Load.Spike.Duration; cs.MaxDuration > 0 && extra > 0 {
		cs.MaxDuration += extra
	}
	return &cs
}

// cellScenario is the scenario a cell runs. For a capacity search the
// scenario is read again with the campaign's capacity variable set to the
// capacity the cell leaves, C′/C, so that the fault's capacity and its
// commands follow it; one that touches what the operator was not shown
// is refused (readAt).
func (cp *campaign) cellScenario(c cell) (*scenarios.Scenario, error) {
	base := cp.scenario
	if base.Campaign.Search == vocab.SearchCapacity {
		s, err := cp.readAt(c.size)
		if err != nil {
			return nil, err
		}
		if s.Fault == nil {
			return nil, errors.New("the scenario read again has no fault")
		}
		s.Fault.Capacity = 1 - c.size
		base = s
	}
	return scenarioFor(base, c), nil
}

// runCell runs one cell in its folder and returns what the campaign
// records of it, with the run's error (a brake, an interrupt).
func (cp *campaign) runCell(ctx context.Context, c cell) (analysis.CampaignCell, *runner.Result, error) {
	rec := analysis.CampaignCell{Index: c.index, Kind: c.kind, Rho: c.rho, DemandPerS: c.rate, Size: c.size, Folder: c.folder(cp.scenario.Campaign.Search)}
	if c.kind == analysis.CellRecoveryDemand {
		rec.HoldDemandPerS = analysis.Num(c.hold)
	}
	cs, err := cp.cellScenario(c)
	if err != nil {
		rec.Verdict, rec.Note = analysis.VerdictInconclusive, err.Error()
		return rec, nil, &runner.Error{Kind: runner.KindUsage, Err: err}
	}
	rec.Multiplier, rec.SpikeS = cs.Load.Spike.Multiplier, cs.Load.Spike.Duration.Seconds()
	test, err := convert.New(cs)
	if err != nil {
		rec.Verdict, rec.Note = analysis.VerdictInconclusive, err.Error()
		return rec, nil, &runner.Error{Kind: runner.KindUsage, Err: err}
	}
	opts := cp.opts.Run
	opts.Test = test
	opts.OutDir = filepath.Join(cp.opts.OutDir, rec.Folder)
	opts.JudgeHeldDemand = c.kind == analysis.CellRecoveryDemand
	if c.kind == analysis.CellTrigger {
		// The model's odds, once for all the cell's trials (and the
		// campaign's own records); on an error the run computes them.
		if sec, err := cp.modelSection(ctx, c.rho, c.rate, c.size, test); err == nil {
			opts.TrapProbability = sec
		}
	}
	if c.trial > 0 {
		opts.Seed = c.seed(opts.Seed)
	}
	res, err := runner.Run(ctx, opts)
	if res == nil {
		rec.Verdict = analysis.VerdictInconclusive
		if err != nil {
			rec.Note = err.Error()
		}
		return rec, nil, err
	}
	d := res.Document
	rec.Verdict, rec.Note = d.Verdict, d.Observation.VerdictReason
	rec.RecoveryS, rec.AFail = d.RecoveryS, d.Amplification.Measured
	if o := d.Observation; o != nil && o.CapacitySource == "served" {
		rec.CapacityPerS = o.CapacityPerS
	}
	if d.Observation != nil && d.RecoveryS == nil && c.kind == analysis.CellTrigger {
		rec.ProjectedRecoveryS = d.Observation.ProjectedRecoveryS
	}
	rec.Trapped = side(c.kind, d)
	if c.kind == analysis.CellRecoveryDemand && d.Observation.OnTrap != nil {
		rec.RecoveryS = d.Observation.OnTrap.RecoveryS
	}
	return rec, res, err
}

// side says on which side of the boundary a finished cell fell; nil when
// it could not tell. A trigger cell is on the trapped side when its run
// judged the service trapped; recovered, metastable (still recovering at
// the horizon) and no-trigger are the other side. A recovery-demand cell
// is on the trapped side when the service, trapped by the spike, stays
// failed at the held demand: not back, the wait's trend there not falling
// (A·λ ≥ C); on the other side when it came back or its wait fell.
func side(kind string, d analysis.Document) *bool {
	yes, no := true, false
	switch kind {
	case analysis.CellRecoveryDemand:
		if d.Verdict != analysis.VerdictTrapped || d.Observation.OnTrap == nil || d.Observation.OnTrap.Error != "" {
			return nil // the spike did not trap this time: nothing was held
		}
		ot := d.Observation.OnTrap
		switch {
		case ot.RecoveryS != nil, ot.HeldTrend != nil && ot.HeldTrend.Falling:
			return &no
		case ot.HeldTrend != nil && ot.HeldTrend.NotFalling:
			return &yes
		}
		return nil
	default:
		switch d.Verdict {
		case analysis.VerdictTrapped:
			return &yes
		case analysis.VerdictRecovered, analysis.VerdictMetastable, analysis.VerdictNoTrigger:
			return &no
		}
	}
	return nil
}
