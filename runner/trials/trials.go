package trials

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
)

// Files of a series in its folder.
const (
	File         = "trials.json"
	MarkdownFile = "trials.md"
)

// Bounds of --trials N: analysis's, which the gate's texts name.
const (
	MinTrials = analysis.MinTrials
	MaxTrials = analysis.MaxTrials
)

// DefaultRest is the pause without load before every trial but the
// first: the campaign's between cells.
const DefaultRest = 10 * time.Second

// Options configure a series of trials.
type Options struct {
	// Test is the scenario converted.
	Test *convert.Test
	// OutDir is the series' folder: trials.json, trials.md and one run
	// folder per trial (trial-NN-seedS). It must be empty or new unless
	// Run.Overwrite.
	OutDir string
	// Trials is N, from MinTrials to MaxTrials.
	Trials int
	// AllTrials runs all N: no early stop.
	AllTrials bool
	// Rest is the pause before every trial but the first; negative means
	// none.
	Rest time.Duration
	// Run is the options every trial's run gets (its Seed is the first
	// trial's; abort file, hurry, logs, progress, transport); Test, OutDir
	// and Seed are the trial's.
	Run runner.Options
	// TrapProbability, when set, is the model's odds already computed
	// (convert.Test.TrapProbability); nil: the series computes them once,
	// before its first trial, and hands them to every trial's run.
	TrapProbability *analysis.TrapProbability
	// OnTrial is told each trial as it starts (index from 1, of N, its
	// seed); nil = none.
	OnTrial func(index, of int, seed uint64)
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Result is a series' document and its folder.
type Result struct {
	Document analysis.TrialsDocument
	OutDir   string
}

// series is one series under way.
type series struct {
	opts Options
	doc  analysis.TrialsDocument
	max  float64 // gate.max_trap_probability
}

// Run runs the trials in turn until the series' outcome is known
// (analysis.TrialsStop) or N ran. Every trial starts on a service the
// probe saw back; one that does not come back ends the series, failed.
// trials.json and trials.md are rewritten after every trial. The error is
// a *runner.Error for a stopped, interrupted or broken series; the Result
// is valid whenever it is not nil.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Trials < MinTrials || opts.Trials > MaxTrials {
		return nil, &runner.Error{Kind: runner.KindUsage, Err: fmt.Errorf("--trials %d: from %d to %d trials", opts.Trials, MinTrials, MaxTrials)}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rest < 0 {
		opts.Rest = 0
	}
	if opts.Run.Seed == 0 {
		opts.Run.Seed = 1
	}
	lock, err := seriesDir.Prepare(opts.OutDir, opts.Run.Overwrite)
	if err != nil {
		return nil, err
	}
	// Held until trials.json is written for the last time; each trial's
	// run locks its own folder as well.
	defer lock.Unlock()
	sr := &series{opts: opts, doc: newDocument(opts, opts.Now()), max: opts.Test.Scenario.Gate.MaxTrapProbability}
	sr.doc.Judge(sr.max)
	err = sr.run(ctx)
	sr.doc.EndedAt = opts.Now().UTC().Format(time.RFC3339)
	if werr := sr.write(); werr != nil {
		if err == nil {
			err = &runner.Error{Kind: runner.KindHarness, Err: werr}
			sr.doc.Outcome = analysis.TrialsHarness
		} else {
			sr.logf("trials: %s not written: %v", File, werr)
		}
	}
	return &Result{Document: sr.doc, OutDir: opts.OutDir}, err
}

// run computes the model's odds, then runs the trials.
func (sr *series) run(ctx context.Context) error {
	// The abort file first: a series it stops costs nothing, the model
	// included.
	if err := sr.aborted(); err != nil {
		return sr.stopped(ctx, err)
	}
	if err := sr.model(ctx); err != nil {
		return sr.stopped(ctx, err)
	}
	if err := sr.write(); err != nil {
		return &runner.Error{Kind: runner.KindHarness, Err: err}
	}
	spec := analysis.TrialsSpec{MaxTrapProbability: sr.max, Asked: sr.opts.Trials, AllTrials: sr.opts.AllTrials}
	for i := 1; ; i++ {
		if stop, early, reason := analysis.TrialsStop(spec, sr.doc.Trials); stop {
			sr.doc.StoppedEarly, sr.doc.StoppedReason = early, reason
			sr.logf("trials: %s", reason)
			return nil
		}
		if err := sr.ready(ctx, i); errors.Is(err, errNotBack) {
			return nil // the outcome is in the document
		} else if err != nil {
			return err
		}
		if err := sr.trial(ctx, i); err != nil {
			return err
		}
	}
}

// model puts the request-level model's P(trap) for the same test in the
// document, the figure plan and every trial's result.json show
// (convert.Test.TrapProbability); every trial's run gets it rather than
// computing it again.
func (sr *series) model(ctx context.Context) error {
	odds := sr.opts.TrapProbability
	if odds == nil {
		var err error
		if odds, err = sr.opts.Test.TrapProbability(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &runner.Error{Kind: runner.KindHarness, Err: fmt.Errorf("the model's odds: %w", err)}
		}
	}
	sr.doc.Model = odds
	sr.opts.Run.TrapProbability = odds
	sr.logf("trials: the model's P(trap): %s", odds.ModelText())
	return nil
}

// ready looks at the abort file, rests (before every trial but the
// first), then probes until the service is back, as a campaign does
// before a cell. A service that does not come back ends the series,
// failed.
func (sr *series) ready(ctx context.Context, i int) error {
	s := sr.opts.Test.Scenario
	err := runner.Ready{Test: sr.opts.Test, Baseline: s.Load.Baseline, Rest: sr.opts.Rest, First: i == 1,
		Transport: sr.opts.Run.Transport, AbortFile: sr.opts.Run.AbortFile, Logf: sr.opts.Run.Logf, Who: "trials"}.Wait(ctx)
	var nb *runner.NotBackError
	switch {
	case errors.As(err, &nb):
		reason := fmt.Sprintf("the service did not come back before trial %d: %v", i, nb)
		if i == 1 {
			reason = "the service was not healthy before the first trial: " + nb.Error()
		}
		sr.doc.StoppedReason = reason
		sr.doc.Gate.Passed, sr.doc.Gate.Inconclusive = false, false
		sr.doc.Gate.Failures = append(sr.doc.Gate.Failures, reason)
		sr.doc.Outcome = analysis.TrialsFailed
		sr.logf("trials: %s", reason)
		return errNotBack
	case err != nil:
		return sr.stopped(ctx, err)
	}
	return nil
}

// errNotBack ends a series whose service did not come back: its outcome
// (failed) is in the document, and no run error stands for it.
var errNotBack = errors.New("the service did not come back")

// trial runs trial i in its folder, records it and judges the series.
func (sr *series) trial(ctx context.Context, i int) error {
	seed := sr.opts.Run.Seed + uint64(i-1)
	folder := trialFolder(i, sr.opts.Trials, seed)
	if sr.opts.OnTrial != nil {
		sr.opts.OnTrial(i, sr.opts.Trials, seed)
	}
	ro := sr.opts.Run
	ro.Test, ro.OutDir, ro.Seed, ro.Overwrite = withoutWebhook(sr.opts.Test), filepath.Join(sr.opts.OutDir, folder), seed, false
	res, err := runner.Run(ctx, ro)
	// A run that could not judge is a trial that could not tell, not the
	// series' end.
	if re := (*runner.Error)(nil); errors.As(err, &re) && re.Kind == runner.KindInconclusive && res != nil {
		err = nil
	}
	if res != nil {
		sr.doc.Trials = append(sr.doc.Trials, row(i, seed, folder, res.Document, sr.opts.Test.Scenario.Gate.MaxRecovery > 0))
		sr.doc.Judge(sr.max)
		r := sr.doc.Trials[len(sr.doc.Trials)-1]
		sr.logf("trials: trial %d of %d (seed %d): %s", i, sr.opts.Trials, seed, r.Verdict)
	}
	if werr := sr.write(); werr != nil && err == nil {
		err = &runner.Error{Kind: runner.KindHarness, Err: werr}
	}
	if err != nil {
		return sr.stopped(ctx, fmt.Errorf("trial %d: %w", i, err))
	}
	return nil
}

// row is what the series records of a trial's run.
func row(i int, seed uint64, folder string, d analysis.Document, budget bool) analysis.TrialRow {
	r := analysis.TrialRow{Index: i, Seed: seed, Folder: folder, Verdict: d.Verdict, RecoveryS: d.RecoveryS,
		AFail: d.Amplification.Measured, Gate: d.Gate}
	if d.Observation != nil {
		r.Note = d.Observation.VerdictReason
	}
	for _, c := range d.Gate.Criteria {
		if c.Name == "recovery" && budget {
			r.RecoveryGate = &c
		}
	}
	return r
}

// stopped records why the series stopped at err and sets its outcome.
func (sr *series) stopped(ctx context.Context, err error) error {
	var re *runner.Error
	switch {
	case ctx.Err() != nil || (errors.As(err, &re) && re.Kind == runner.KindInterrupted):
		sr.doc.StoppedReason, sr.doc.Outcome = "interrupted", analysis.TrialsInterrupted
		return &runner.Error{Kind: runner.KindInterrupted, Err: runner.ErrInterrupted}
	case errors.As(err, &re) && re.Kind == runner.KindStopped:
		sr.doc.StoppedReason, sr.doc.Outcome = "stopped by a brake: "+err.Error(), analysis.TrialsStopped
		return err
	}
	sr.doc.StoppedReason, sr.doc.Outcome = err.Error(), analysis.TrialsHarness
	if errors.As(err, &re) && re.Kind == runner.KindInconclusive {
		sr.doc.Outcome = analysis.TrialsInconclusive
	}
	if errors.As(err, &re) {
		return err
	}
	return &runner.Error{Kind: runner.KindHarness, Err: err}
}

// aborted is the abort file's brake: a stopped error once it exists.
func (sr *series) aborted() error { return runner.AbortFileError(sr.opts.Run.AbortFile) }

// logf prints a note for the user, when there is a log.
func (sr *series) logf(format string, args ...any) {
	if sr.opts.Run.Logf != nil {
		sr.opts.Run.Logf(format, args...)
	}
}

// trialFolder is trial i's folder of n: its number padded to the width of
// n (at least two digits), so that the folders sort in trial order, and
// its seed: trial-07-seed7, trial-007-seed7 of 100 or more.
func trialFolder(i, n int, seed uint64) string {
	width := max(2, len(fmt.Sprint(n)))
	return fmt.Sprintf("trial-%0*d-seed%d", width, i, seed)
}

// withoutWebhook is test without its notify block: a trial's run posts no
// message (one per trial, each saying max_trap_probability was not
// judged, would be wrong about the series), as a campaign's cell posts
// none.
func withoutWebhook(t *convert.Test) *convert.Test {
	if t.Run.Notify == nil {
		return t
	}
	c := *t
	c.Run.Notify = nil
	return &c
}
