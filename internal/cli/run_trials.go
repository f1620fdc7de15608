package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/runner/trials"
)

// trialsFlags are run's repeated trials: --trials N, --all-trials, --rest.
type trialsFlags struct {
	n    int
	all  bool
	rest time.Duration
}

func (tf *trialsFlags) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&tf.n, "trials", 0, fmt.Sprintf("run the test N times (%d to %d) with seeds --seed, --seed+1, … and report P(trap) with its interval (trials.json); stops early by the sequential rule, or once the gate can no longer pass (--all-trials: never)", trials.MinTrials, trials.MaxTrials))
	cmd.Flags().BoolVar(&tf.all, "all-trials", false, "with --trials: run all N trials, no early stop")
	cmd.Flags().DurationVar(&tf.rest, "rest", trials.DefaultRest, "with --trials: the pause without load before every trial but the first")
}

// check refuses --trials out of bounds, and --all-trials or --rest
// without --trials.
func (tf *trialsFlags) check(cmd *cobra.Command) error {
	f := cmd.Flags()
	switch {
	case f.Changed("trials") && (tf.n < trials.MinTrials || tf.n > trials.MaxTrials):
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--trials %d: from %d to %d (without --trials, run runs the test once)", tf.n, trials.MinTrials, trials.MaxTrials)}
	case tf.n == 0 && (f.Changed("all-trials") || f.Changed("rest")):
		return &ExitError{Code: ExitUsage, Err: errors.New("--all-trials and --rest are for --trials N")}
	case tf.rest < 0:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--rest %s: not negative", tf.rest)}
	}
	return nil
}

// warnSingle says, before one run, that its gate's max_trap_probability
// is not judged by it.
func (tf *trialsFlags) warnSingle(test *convert.Test, stderr io.Writer) {
	if p := test.Scenario.Gate.MaxTrapProbability; p > 0 {
		if need := analysis.CleanTrialsFor(p); need <= trials.MaxTrials {
			fmt.Fprintf(stderr, "trigger: gate.max_trap_probability %g is not judged by one run: it takes --trials N with N ≥ %d, every trial clean\n", p, need)
			return
		}
		fmt.Fprintf(stderr, "trigger: gate.%s\n", analysis.TrapProbabilityCriterion(p).Detail)
	}
}

// run runs the series: one confirmation naming the trials and the
// longest they can take, a progress line per trial, then the summary (or
// trials.json with --json) and the series' exit code.
func (tf *trialsFlags) run(ctx context.Context, test *convert.Test, out string, ro runner.Options, yes, asJSON bool, stdout, stderr io.Writer) error {
	if p := test.Scenario.Gate.MaxTrapProbability; p > 0 && tf.n < analysis.CleanTrialsFor(p) {
		fmt.Fprintf(stderr, "trigger: with --trials %d gate.max_trap_probability %g cannot pass: it takes %d clean trials; the series reports the odds, and the gate inconclusive or failed\n",
			tf.n, p, analysis.CleanTrialsFor(p))
	}
	if !yes {
		fmt.Fprintf(stderr, "Up to %d trigger tests of this scenario, one after another, at most %s (each after a probe, and a rest of %s). Each:\n",
			tf.n, trials.Longest(test, tf.n, tf.rest).Round(time.Second), tf.rest)
	}
	if err := confirm(test, yes, os.Stdin, stderr); err != nil {
		return err
	}
	pp := newProgressPrinter(stderr)
	ro.Progress, ro.Logf = pp.update, pp.note
	res, err := trials.Run(ctx, trials.Options{
		Test: test, OutDir: out, Trials: tf.n, AllTrials: tf.all, Rest: tf.rest, Run: ro,
		OnTrial: func(i, n int, seed uint64) { pp.setPrefix(fmt.Sprintf("trial %d/%d (seed %d) ", i, n, seed)) },
	})
	pp.end()
	if res == nil {
		return runError(err)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Document); err != nil {
			return &ExitError{Code: ExitHarness, Err: err}
		}
	} else {
		if err := report.WriteTrialsText(stdout, res.Document); err != nil {
			return &ExitError{Code: ExitHarness, Err: err}
		}
		fmt.Fprintf(stdout, "\nTrials: %s\n", filepath.Join(res.OutDir, trials.File))
	}
	return trialsExit(res.Document, err)
}

// trialsExit is a series' exit code: a broken series (usage, harness)
// exits as a run would; otherwise its outcome decides.
func trialsExit(d analysis.TrialsDocument, err error) error {
	if re := (*runner.Error)(nil); errors.As(err, &re) && (re.Kind == runner.KindHarness || re.Kind == runner.KindUsage) {
		return runError(err)
	}
	code, ok := map[string]int{analysis.TrialsPassed: ExitPassed, analysis.TrialsFailed: ExitGateFailed, analysis.TrialsInconclusive: ExitInconclusive,
		analysis.TrialsStopped: ExitStopped, analysis.TrialsInterrupted: ExitInterrupted, analysis.TrialsHarness: ExitHarness}[d.Outcome]
	switch {
	case !ok:
		return &ExitError{Code: ExitHarness, Err: fmt.Errorf("a series of trials ended %q", d.Outcome)}
	case code == ExitPassed:
		return nil
	}
	return &ExitError{Code: code, Err: err, Reported: true}
}
