package trials

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/version"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
)

// newDocument is trials.json before any trial.
func newDocument(opts Options, now time.Time) analysis.TrialsDocument {
	s := opts.Test.Scenario
	plan := analysis.Plan(opts.Test.Plan)
	return analysis.TrialsDocument{
		Kind:           "trials",
		TriggerVersion: version.String(),
		Scenario: analysis.TrialsScenario{Name: s.Name, File: s.File, Hash: s.Hash, Target: plan.Scenario.Target,
			DemandPerS: s.Load.Baseline, CapacityPerS: s.Service.Capacity, Multiplier: s.Load.Spike.Multiplier,
			SpikeS: s.Load.Spike.Duration.Seconds(), TimeoutS: s.Client.Timeout.Seconds()},
		TrialsAsked: opts.Trials,
		BaseSeed:    opts.Run.Seed,
		AllTrials:   opts.AllTrials,
		RestS:       opts.Rest.Seconds(),
		StartedAt:   now.UTC().Format(time.RFC3339),
		Trials:      []analysis.TrialRow{},
	}
}

// write rewrites trials.json and trials.md atomically; a report that
// cannot be written is a note, not the series' end.
func (sr *series) write() error {
	err := report.WriteFileAtomic(sr.opts.OutDir, File, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sr.doc)
	})
	if err != nil {
		return err
	}
	if err := report.WriteFileAtomic(sr.opts.OutDir, MarkdownFile, func(w io.Writer) error {
		return report.WriteTrialsMarkdown(w, sr.doc)
	}); err != nil {
		sr.logf("trials: %v", err)
	}
	return nil
}

// Longest is the most a series of n trials of test can take: every trial
// at its longest (convert.RunLength: warmup, spike or fault, observe and
// on_trap's observation, a fault's commands' bounds, or max_duration when
// shorter), with the probe before it and the rest before all but the
// first; the model's odds aside.
func Longest(test *convert.Test, n int, rest time.Duration) time.Duration {
	s := test.Scenario
	return time.Duration(n)*(convert.RunLength(s)+convert.ProbeLimit(s)) + time.Duration(max(n-1, 0))*max(rest, 0)
}

// seriesDir is a series' folder: trials.json, trials.md and trial-*
// run folders (runner.SeriesDir.Prepare).
var seriesDir = runner.SeriesDir{What: "series of trials", Owns: seriesEntry, RunPrefix: "trial-"}

// seriesEntry says whether a folder entry is one a series writes.
func seriesEntry(e os.DirEntry) bool {
	name := e.Name()
	switch {
	case name == File, name == MarkdownFile,
		strings.HasPrefix(name, "."+File+"-"), strings.HasPrefix(name, "."+MarkdownFile+"-"): // a write cut short
		return !e.IsDir()
	case strings.HasPrefix(name, "trial-"):
		return e.IsDir()
	}
	return false
}
