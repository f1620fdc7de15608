package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/runner/report"
)

// JudgeOptions are what `trigger judge` replays a recorded run with.
type JudgeOptions struct {
	// Dir is the run's folder: its result.json and timeline.csv.
	Dir string
	// Gate, when not nil, is the gate to judge the run's evidence under
	// instead of its own (--max-recovery, --allow-trap, --max-amplification).
	Gate *analysis.GateSpec
	// Baseline, when set, is a recorded run (its folder or result.json)
	// to compare with, as gate.baseline does; without it the run's own
	// comparison, if it had one, stands.
	Baseline string
	// Out, when set, is a folder to write the judged result.json, a copy of
	// the timeline and the reports in; it must not exist or be empty.
	Out string
	// Hurry, when closed, stops waiting for the reports.
	Hurry <-chan struct{}
}

// ErrNotReplayable: the run's folder lacks what the referee read, or its
// timeline cannot give the rows back as the run read them.
var ErrNotReplayable = errors.New("the run cannot be replayed")

// Judge replays a recorded run through the referee (referee.Replay): the
// rows of its timeline.csv in order, the runner's events where they came,
// its end as it ended. With the run's own gate it gives the verdict, the
// reason and the figures the run gave; under another gate the same
// evidence concluded anew. It sends nothing and writes only in opts.Out.
//
// The error, when the run was judged, is the run's own as Run returns it
// (inconclusive, stopped, interrupted), so that the exit code is run's.
func Judge(opts JudgeOptions) (*Result, error) {
	doc, err := report.ReadResult(filepath.Join(opts.Dir, ResultFile))
	if err != nil {
		return nil, &Error{Kind: KindUsage, Err: err}
	}
	if doc.Kind != "run" {
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %s is the result of a %s, not of a run", ErrNotReplayable, opts.Dir, doc.Kind)}
	}
	if doc.Judging == nil {
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %s has no judging section (written by a trigger that did not record what its referee read)", ErrNotReplayable, filepath.Join(opts.Dir, ResultFile))}
	}
	rows, whole, partial, err := report.ReadDirTimelineWhole(opts.Dir)
	switch {
	case err != nil:
		return nil, &Error{Kind: KindUsage, Err: err}
	case whole > len(rows):
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: its timeline has %d rows, more than the %d a reader keeps whole", ErrNotReplayable, whole, report.MaxTimelineRows)}
	case partial != nil && whole < doc.Judging.Rows:
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %v", ErrNotReplayable, partial)}
	}
	ref, out, err := referee.Replay(doc, *doc.Judging, rows)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %v", ErrNotReplayable, err)}
	}
	if opts.Gate != nil {
		ref.JudgeUnder(*opts.Gate)
	}
	judged := doc
	ref.Fill(&judged)
	judged.Comparison = nil
	switch {
	case opts.Baseline != "":
		base, _, err := report.ReadRunResult(opts.Baseline)
		if err != nil {
			return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("--baseline: %w", err)}
		}
		th := analysis.DefaultCompareThresholds
		if doc.Comparison != nil {
			th = doc.Comparison.Thresholds
		}
		applyBaseline(&judged, base, opts.Baseline, th)
	case doc.Comparison != nil:
		// The run's own comparison: the figures it compared are the
		// replay's, so it stands as the run made it.
		keepCriterion(&judged, doc, "baseline")
		judged.Comparison = doc.Comparison
	}
	res := &Result{Document: judged, Timeline: ref.Rows(), OutDir: opts.Out}
	if opts.Out != "" {
		written, err := writeJudged(opts, res)
		res.Written = written
		if err != nil {
			return res, err
		}
	}
	if f := judged.Observation.Fault; f != nil && f.Error != "" {
		// A fault the run could not put back is the run's harness error,
		// whatever the verdict (Run's last word too).
		return res, &Error{Kind: KindHarness, Err: fmt.Errorf("%w: %s", ErrFaultNotRestored, f.Error)}
	}
	return res, judgedError(out, judged.Judging.End)
}

// keepCriterion copies the named criterion of from's gate into doc's.
func keepCriterion(doc *analysis.Document, from analysis.Document, name string) {
	for _, c := range from.Gate.Criteria {
		if c.Name != name {
			continue
		}
		doc.Gate.Criteria = append(doc.Gate.Criteria, c)
		if !c.Passed {
			doc.Gate.Passed = false
			doc.Gate.Failures = append(doc.Gate.Failures, c.Detail)
		}
	}
}

// judgedError is the error Run returned for a run that ended so.
func judgedError(out referee.Outcome, end analysis.JudgingEnd) error {
	switch {
	case end.Interrupted:
		return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	case end.Stopped != "":
		return &Error{Kind: KindStopped, Err: fmt.Errorf("%w: %s", ErrStopped, end.Stopped)}
	case out.Kind == referee.KindTargetRefused:
		return &Error{Kind: KindHarness, Err: fmt.Errorf("%w: %s", ErrTargetRefused, out.Inconclusive)}
	case out.Inconclusive != "":
		return &Error{Kind: KindInconclusive, Err: fmt.Errorf("%w: %s", inconclusiveSentinel(out.Kind, harnessKinds[end.InconclusiveKind]), out.Inconclusive)}
	}
	return nil
}

// writeJudged writes the judged run into opts.Out: result.json, a copy of
// the timeline, and the reports.
func writeJudged(opts JudgeOptions, res *Result) ([]string, error) {
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, failf(KindHarness, "--out: %w", err)
	}
	if ents, err := os.ReadDir(opts.Out); err != nil || len(ents) > 0 {
		if err == nil {
			err = ErrOutExists
		}
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("--out %s: %w", opts.Out, err)}
	}
	var written []string
	if err := copyFile(filepath.Join(opts.Dir, report.TimelineFile), opts.Out, report.TimelineFile); err != nil {
		return written, failf(KindHarness, "%w", err)
	}
	written = append(written, report.TimelineFile)
	if err := report.WriteResult(filepath.Join(opts.Out, ResultFile), res.Document); err != nil {
		return written, failf(KindHarness, "%w", err)
	}
	written = append(written, ResultFile)
	more, err := writeReports(opts.Out, res.Document, res.Timeline, nil, opts.Hurry)
	written = append(written, more...)
	if err != nil {
		return written, failf(KindHarness, "reports: %w", err)
	}
	return written, nil
}

// copyFile copies the regular file src into dir/name.
func copyFile(src, dir, name string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return report.WriteFileAtomic(dir, name, func(w io.Writer) error {
		_, err := io.Copy(w, io.LimitReader(in, report.MaxTimelineBytes))
		return err
	})
}
