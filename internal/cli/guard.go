package cli

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner"
)

type faultGuardKey struct{}

// WithFaultGuard returns ctx carrying argv, the command that starts the
// fault guard (the trigger binary and "fault-guard"): runs then start it
// beside a fault (runner.Options.FaultGuard). Without it (tests that call
// Main in-process), no guard.
func WithFaultGuard(ctx context.Context, argv []string) context.Context {
	return context.WithValue(ctx, faultGuardKey{}, argv)
}

// faultGuardOf is the argv WithFaultGuard put in ctx; nil if none.
func faultGuardOf(ctx context.Context) []string {
	argv, _ := ctx.Value(faultGuardKey{}).([]string)
	return argv
}

// newFaultGuardCommand is `trigger fault-guard JOURNAL`, which a run starts
// itself (hidden): it waits on its stdin, a pipe from the run, and runs
// the fault's stop if the run ends without putting the fault back
// (runner.RunFaultGuard). It ignores the signals that stop a run: it is
// what acts when the run is gone.
func newFaultGuardCommand(stdin *os.File) *cobra.Command {
	return &cobra.Command{
		Use:    "fault-guard JOURNAL",
		Short:  "Put a fault back if the run that started it dies (started by run itself)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			err := runner.RunFaultGuard(stdin, args[0])
			if errors.Is(err, runner.ErrFaultNotRestored) {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return nil
		},
	}
}
