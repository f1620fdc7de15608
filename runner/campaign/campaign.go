package campaign

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// File is the campaign's document in its folder.
const File = "campaign.json"

// Options configure a campaign.
type Options struct {
	// Test is the scenario converted; its Scenario has a campaign block.
	Test *convert.Test
	// OutDir is the campaign's folder: campaign.json and one run folder
	// per cell. It must be empty or new unless Run.Overwrite.
	OutDir string
	// Run is the options every cell's run gets (seed, abort file, hurry,
	// logs, progress, transport); Test and OutDir are the cell's.
	Run runner.Options
	// Vars are the --var values the scenario was read with: a capacity
	// search reads it again with them and its capacity variable.
	Vars map[string]string
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Tipping records the model's P(trap) for every trigger cell and over
	// the searched range (`trigger campaign --tipping`), for the chart.
	Tipping bool
}

// Reasons a campaign stops, in StoppedReason.
const (
	ReasonFinished = "finished"
)

// Outcome is how a campaign ended, for the exit code.
type Outcome int

// The outcomes.
const (
	// Finished: every search ended; Gate passed (or none).
	Finished Outcome = iota
	// Incomplete: a baseline could not be measured (a cell could not tell).
	Incomplete
	// GateFailed: min_trigger_margin failed, or the service did not come
	// back: what was observed outranks what could not be.
	GateFailed
	// Stopped: a brake (stop_when, the abort file) stopped it.
	Stopped
	// Interrupted: a signal or max_duration stopped it.
	Interrupted
)

// Result is a campaign's document and outcome.
type Result struct {
	Document analysis.CampaignDocument
	Outcome  Outcome
	OutDir   string
}

// campaign is one campaign under way.
type campaign struct {
	opts     Options
	scenario *scenarios.Scenario
	doc      analysis.CampaignDocument
	next     int // the next cell's index
	runs     int // runs so far (a cell's trials each count)
	// model holds the model's trap_probability section by baseline ρ
	// and size of a trigger cell, each simulated once.
	model   map[[2]float64]*analysis.TrapProbability
	outcome Outcome
	// outer is the caller's context: when it ends the campaign was
	// interrupted; when only the campaign's own ends, max_duration passed.
	outer context.Context
}

// Run maps the scenario's campaign: for each baseline, trigger cells
// bracketing the smallest spike that traps, then (hysteresis) the
// recovery demand. Every cell starts on a service the probe found back;
// one that does not come back stops the campaign. campaign.json is
// rewritten after every cell. The error is a *runner.Error for a
// stopped, interrupted or broken campaign; the Result is valid whenever
// it is not nil.
func Run(ctx context.Context, opts Options) (*Result, error) {
	s := opts.Test.Scenario
	if s.Campaign == nil {
		return nil, &runner.Error{Kind: runner.KindUsage, Err: errors.New("the scenario has no campaign block")}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cp := &campaign{opts: opts, scenario: s, doc: newDocument(opts.Test, opts.Now()), outer: ctx}
	if cp.oddsMode() {
		cp.doc.TrapProbability, cp.doc.Tipping = s.Campaign.TrapProbability, opts.Tipping
		if s.Campaign.Trials > 1 {
			cp.doc.Trials = s.Campaign.Trials
		}
	}
	// Every cell's scenario is checked against what the operator was
	// shown before the folder is made or anything sent.
	if err := cp.checkCells(); err != nil {
		return nil, err
	}
	lock, err := campaignDir.Prepare(opts.OutDir, opts.Run.Overwrite)
	if err != nil {
		return nil, err
	}
	// Held until campaign.json is written for the last time; each cell's
	// run locks its own folder as well.
	defer lock.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.Campaign.MaxDuration)
	defer cancel()
	err = cp.run(ctx)
	if err != nil && cp.doc.StoppedReason == "" {
		cp.doc.StoppedReason = err.Error()
	}
	cp.finish()
	if werr := cp.write(); werr != nil {
		if err == nil {
			err = &runner.Error{Kind: runner.KindHarness, Err: werr}
		} else {
			cp.logf("campaign: %s not written: %v", File, werr)
		}
	}
	return &Result{Document: cp.doc, Outcome: cp.outcome, OutDir: opts.OutDir}, err
}

// run searches every baseline in turn.
func (cp *campaign) run(ctx context.Context) error {
	c := cp.scenario.Campaign
	for i, rho := range c.Baselines {
		b := analysis.CampaignBaseline{Rho: rho, DemandPerS: c.Rates[i]}
		cp.doc.Baselines = append(cp.doc.Baselines, b)
		if err := cp.search(ctx, i); err != nil {
			return err
		}
	}
	cp.doc.StoppedReason = ReasonFinished
	return nil
}

// search brackets the smallest trap at baseline i, then λ_r. With
// trials, each cell is repeated until the sequential rule places it
// against the level, and the search stops at a cell it cannot
// (analysis.OddsBracket); one trial a cell places it by its one run.
func (cp *campaign) search(ctx context.Context, i int) error {
	c := cp.scenario.Campaign
	b := &cp.doc.Baselines[i]
	br := analysis.NewOddsBracket(c.From, c.To, c.Precision, c.TrapProbability)
	for {
		size, end := br.Next()
		if end != "" {
			b.SearchEnd = string(end)
			break
		}
		rec, side, err := cp.cell(ctx, cell{kind: analysis.CellTrigger, rho: b.Rho, rate: b.DemandPerS, size: size})
		if err != nil {
			b.SearchEnd = "stopped: " + err.Error()
			cp.summarize(i, br.Bracket)
			return err
		}
		if side == nil {
			b.SearchEnd = fmt.Sprintf("cell %d could not tell (%s): %s", rec.Index, rec.Verdict, rec.Note)
			cp.outcome = max(cp.outcome, Incomplete)
			break
		}
		br.RecordSide(size, *side)
		cp.summarize(i, br.Bracket)
		if err := cp.write(); err != nil {
			return &runner.Error{Kind: runner.KindHarness, Err: err}
		}
	}
	cp.summarize(i, br.Bracket)
	cp.modelAtLevel(ctx, i)
	if err := cp.write(); err != nil {
		return &runner.Error{Kind: runner.KindHarness, Err: err}
	}
	if c.Hysteresis && !math.IsNaN(br.Above) {
		return cp.recoveryDemand(ctx, i, br.Above)
	}
	return nil
}

// recoveryDemand brackets λ_r at baseline i: each cell traps the service
// with the smallest spike seen to trap (trapSize), holds demand at the
// middle of the bracket, and watches for the way back for on_trap's
// observation (docs/model.md, "Mapping the boundary", hysteresis). Zero
// demand is known to recover (the probe saw it), the baseline known not to.
func (cp *campaign) recoveryDemand(ctx context.Context, i int, trapSize float64) error {
	c := cp.scenario.Campaign
	b := &cp.doc.Baselines[i]
	br := analysis.NewKnownBracket(0, b.DemandPerS, c.Precision)
	for {
		hold, end := br.Next()
		if end != "" {
			break
		}
		rec, _, err := cp.cell(ctx, cell{kind: analysis.CellRecoveryDemand, rho: b.Rho, rate: b.DemandPerS, size: trapSize, hold: hold})
		if err != nil {
			cp.summarizeRecovery(i, br)
			return err
		}
		if rec.Trapped == nil {
			b.Note = fmt.Sprintf("λ_r not measured, because cell %d did not trap (%s): nothing was held", rec.Index, rec.Verdict)
			cp.outcome = max(cp.outcome, Incomplete)
			break
		}
		br.Record(hold, *rec.Trapped)
		cp.summarizeRecovery(i, br)
		if err := cp.write(); err != nil {
			return &runner.Error{Kind: runner.KindHarness, Err: err}
		}
	}
	cp.summarizeRecovery(i, br)
	return nil
}

// cell runs one cell and records it: one trial, or with campaign trials
// (trigger cells only) trial after trial until the sequential rule
// places the cell against the level or the trials are spent. Each trial
// waits for a recovered service first. side is where the cell stands (a
// single trial: above when trapped, below otherwise); nil when no trial
// could tell.
func (cp *campaign) cell(ctx context.Context, c cell) (analysis.CampaignCell, *analysis.Side, error) {
	c.index = cp.next
	cp.next++
	trials, level := cp.trials(c), cp.scenario.Campaign.TrapProbability
	var rec analysis.CampaignCell
	var tally odds
	at := len(cp.doc.Cells)
	for t := 1; t <= trials; t++ {
		if trials > 1 {
			c.trial = t
		}
		if err := cp.ready(ctx, c); err != nil {
			return rec, nil, err
		}
		cp.logf("campaign: cell %d%s, ρ = %.3g (%g/s), %s", c.index, c.trialWord(trials), c.rho, c.rate, describe(cp.scenario, c))
		tr, res, err := cp.runCell(ctx, c)
		cp.runs++
		// A run that could not judge is a cell that could not tell, not the
		// campaign's end.
		if re := (*runner.Error)(nil); errors.As(err, &re) && re.Kind == runner.KindInconclusive && res != nil {
			err = nil
		}
		rec = tr
		if trials > 1 {
			rec = tally.add(tr, c.seed(cp.opts.Run.Seed), level)
		}
		if len(cp.doc.Cells) == at {
			cp.doc.Cells = append(cp.doc.Cells, rec)
		}
		cp.doc.Cells[at] = rec
		if werr := cp.write(); werr != nil && err == nil {
			err = &runner.Error{Kind: runner.KindHarness, Err: werr}
		}
		if err != nil {
			return rec, nil, cp.stopped(ctx, fmt.Errorf("cell %d: %w", c.index, err))
		}
		cp.logf("campaign: cell %d%s %s (%s)", c.index, c.trialWord(trials), tr.Verdict, trappedWord(tr.Trapped))
		if trials > 1 && tally.side != analysis.Undecided {
			break
		}
	}
	side := tally.placed(rec, trials)
	if cp.oddsMode() && c.kind == analysis.CellTrigger {
		rec = cp.withOdds(ctx, c, rec, side)
		cp.doc.Cells[at] = rec
	}
	return rec, side, nil
}

// ready rests (after the first cell), then probes until the service is
// back; the abort file is looked at first and every quarter second of
// both (the cells' runs hold every brake themselves).
func (cp *campaign) ready(ctx context.Context, c cell) error {
	err := runner.Ready{Test: cp.opts.Test, Baseline: c.rate, Rest: cp.scenario.Campaign.Rest, First: cp.runs == 0,
		Transport: cp.opts.Run.Transport, AbortFile: cp.opts.Run.AbortFile, Logf: cp.opts.Run.Logf, Who: "campaign"}.Wait(ctx)
	var nb *runner.NotBackError
	switch {
	case errors.As(err, &nb):
		cp.outcome = max(cp.outcome, GateFailed)
		cp.doc.StoppedReason = "the service did not come back before cell " + fmt.Sprint(c.index) + ": " + nb.Error()
		if cp.runs == 0 {
			cp.doc.StoppedReason = "the service was not healthy before the first cell: " + nb.Error()
		}
		return &runner.Error{Kind: runner.KindInconclusive, Err: errors.New(cp.doc.StoppedReason)}
	case err != nil:
		return cp.stopped(ctx, err)
	}
	return nil
}

// logf prints a note for the user, when there is a log.
func (cp *campaign) logf(format string, args ...any) {
	if cp.opts.Run.Logf != nil {
		cp.opts.Run.Logf(format, args...)
	}
}

// stopped records why the campaign stopped at err and sets the outcome.
func (cp *campaign) stopped(ctx context.Context, err error) error {
	var re *runner.Error
	switch {
	case cp.outer.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		cp.doc.StoppedReason = fmt.Sprintf("max_duration (%s) reached", cp.scenario.Campaign.MaxDuration)
		cp.outcome = max(cp.outcome, Interrupted)
		return &runner.Error{Kind: runner.KindInterrupted, Err: errors.New(cp.doc.StoppedReason)}
	case ctx.Err() != nil || (errors.As(err, &re) && re.Kind == runner.KindInterrupted):
		cp.doc.StoppedReason = "interrupted"
		cp.outcome = max(cp.outcome, Interrupted)
		return &runner.Error{Kind: runner.KindInterrupted, Err: runner.ErrInterrupted}
	case errors.As(err, &re) && re.Kind == runner.KindStopped:
		cp.doc.StoppedReason = "stopped by a brake: " + err.Error()
		cp.outcome = max(cp.outcome, Stopped)
		return err
	}
	cp.doc.StoppedReason = err.Error()
	cp.outcome = max(cp.outcome, Incomplete)
	if errors.As(err, &re) {
		return err
	}
	return &runner.Error{Kind: runner.KindHarness, Err: err}
}

// aborted is the abort file's brake: a stopped error once it exists.
func (cp *campaign) aborted() error {
	return runner.AbortFileError(cp.opts.Run.AbortFile)
}

// describe names the cell's spike (and held demand) in words.
func describe(s *scenarios.Scenario, c cell) string {
	sp := c.spike(s)
	out := fmt.Sprintf("spike ×%g for %s", sp.Multiplier, sp.Duration)
	if s.Campaign.Search == vocab.SearchCapacity {
		out = fmt.Sprintf("capacity to %.4g of C for %s", 1-c.size, sp.Duration)
	}
	if c.kind == analysis.CellRecoveryDemand {
		out += fmt.Sprintf(", then demand held at %.4g/s", c.hold)
	}
	return out
}

func trappedWord(t *bool) string {
	switch {
	case t == nil:
		return "could not tell"
	case *t:
		return "trapped side"
	}
	return "recovered side"
}

// campaignDir is a campaign's folder: campaign.json, campaign.html and
// cell-* run folders.
var campaignDir = runner.SeriesDir{What: "campaign", Owns: campaignEntry, RunPrefix: "cell-"}

// prepare creates the campaign's folder and takes its lock
// (runner.SeriesDir.Prepare); the caller holds the lock for the
// campaign's life.
func prepare(dir string, overwrite bool) (*runner.DirLock, error) {
	return campaignDir.Prepare(dir, overwrite)
}

// campaignEntry says whether a folder entry is one a campaign writes.
func campaignEntry(e os.DirEntry) bool {
	name := e.Name()
	switch {
	case name == File, name == report.CampaignHTMLFile,
		strings.HasPrefix(name, "."+File+"-"), strings.HasPrefix(name, "."+report.CampaignHTMLFile+"-"): // a write cut short
		return !e.IsDir()
	case strings.HasPrefix(name, "cell-"):
		return e.IsDir()
	}
	return false
}
