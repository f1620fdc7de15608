package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
)

func newJudgeCommand(stdout, stderr io.Writer) *cobra.Command {
	var asJSON, allowTrap bool
	var maxRecovery, maxAmplification float64
	var baseline, out string
	cmd := &cobra.Command{
		Use:   "judge [--json] [--max-recovery S] [--allow-trap] [--max-amplification A] [--baseline RUN] [--out DIR] RUN_DIR",
		Short: "Judge a recorded run again from its folder, under its own gate or another",
		Long: `judge replays a recorded run: the rows of its timeline.csv, in order,
through the same referee the run used, with what the referee read besides
them (the judging section of result.json: the recovery rule, the gate, the
signals with their delays, the moments the spike started and on_trap
began, how the run ended). Under the run's own gate it gives the verdict,
the reason and the figures the run gave. It sends nothing.

--max-recovery, --allow-trap and --max-amplification judge the same
evidence under another gate: when the run stopped and what it measured stay
as they were; what the gate says of them changes. --baseline compares with
another recorded run as gate.baseline does. --out writes the judged
result.json, a copy of the timeline and the reports into a new folder.

A run recorded before trigger kept its referee's inputs, or whose
timeline.csv has more than 20 000 rows, cannot be replayed (exit 2).

Exit codes are run's: 0 passed, 1 gate failed, 2 the folder cannot be
replayed, 3 inconclusive, 4 the target was down (or --out could not be
written), 5 the run was stopped by a brake, 130 it was interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := runner.JudgeOptions{Dir: args[0], Baseline: baseline, Out: out, Hurry: hurryOf(cmd.Context())}
			f := cmd.Flags()
			if f.Changed("max-recovery") || f.Changed("allow-trap") || f.Changed("max-amplification") {
				gate, err := recordedGate(args[0])
				if err != nil {
					return err
				}
				if f.Changed("max-recovery") {
					gate.MaxRecoveryS = maxRecovery
				}
				if f.Changed("allow-trap") {
					gate.AllowTrap = allowTrap
				}
				if f.Changed("max-amplification") {
					gate.MaxAmplification = maxAmplification
				}
				opts.Gate = &gate
			}
			res, err := runner.Judge(opts)
			return printRun(stdout, res, err, asJSON, out != "")
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the judged result document as JSON")
	cmd.Flags().Float64Var(&maxRecovery, "max-recovery", 0, "the recovery budget in seconds to judge under (0: none)")
	cmd.Flags().BoolVar(&allowTrap, "allow-trap", false, "let a trapped verdict pass the gate")
	cmd.Flags().Float64Var(&maxAmplification, "max-amplification", 0, "fail the gate when the measured amplification exceeds this (0: no limit)")
	cmd.Flags().StringVar(&baseline, "baseline", "", "compare with this recorded run (its folder or result.json), as gate.baseline does")
	cmd.Flags().StringVar(&out, "out", "", "write the judged result.json, the timeline and the reports into this new folder")
	return cmd
}

// recordedGate is the gate a recorded run was judged under.
func recordedGate(dir string) (analysis.GateSpec, error) {
	doc, err := report.ReadResult(filepath.Join(dir, report.ResultFile))
	switch {
	case err != nil:
		return analysis.GateSpec{}, &ExitError{Code: ExitUsage, Err: err}
	case doc.Judging == nil:
		return analysis.GateSpec{}, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w: %s has no judging section", runner.ErrNotReplayable, dir)}
	}
	return doc.Judging.Config.Gate, nil
}
