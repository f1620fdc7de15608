package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
)

func newSimulateCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var asJSON bool
	var model string
	var seed int64
	var step, sample float64
	cmd := &cobra.Command{
		Use:   "simulate [--model fluid|request] [--seed N] [--json] SCENARIO.hcl",
		Short: "Run the scenario through a model of the service, second by second; sends nothing",
		Long: `simulate runs the scenario's warmup, spike and observation through a model
of the service and prints what the model shows: the verdict, the recovery
time, the amplification in the failed state, and a timeline.

The fluid model is SPEC.md's model in delay form: a FIFO queue at the
scenario's capacity, clients that give up after their timeout and retry
(cap, budget, mean backoff), work served even after its client has gone,
and an optional admission bound.

Exit codes as for plan: 0 the gate passes, 1 it fails, 3 no trigger.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model != "fluid" {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--model %q: only the fluid model is available yet", model)}
			}
			s, err := sf.load(args[0], stderr)
			if err != nil {
				return err
			}
			in, err := runner.PlanInputs(s)
			if err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			doc, err := analysis.SimulatePlan(in, step, sample)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			_ = seed
			if err := emit(stdout, doc, asJSON, func(w io.Writer) error { return printTimeline(w, doc.Timeline) }); err != nil {
				return err
			}
			return exitFor(doc)
		},
	}
	sf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result document, timeline included, as JSON")
	cmd.Flags().StringVar(&model, "model", "fluid", "the model: fluid")
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed (request-level model)")
	cmd.Flags().Float64Var(&step, "step", 0.01, "integration step of the fluid model, seconds")
	cmd.Flags().Float64Var(&sample, "sample", 1, "timeline resolution, seconds")
	return cmd
}
