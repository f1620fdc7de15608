package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner"
)

func newRestoreCommand(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "restore OUT_DIR",
		Short: "Run the pending stop command of a fault a killed run left in place",
		Long: `restore reads the fault journal in a run's folder (` + runner.FaultJournalFile + `) and, when it
says the fault's stop command has not succeeded (the run was killed with
SIGKILL, or the stop failed), runs that stop command, from the scenario's
folder, within the fault's timeout. A journal that says the fault was put
back makes it a no-op. On success the journal says restored and the
target's entry in the pending-fault registry is removed, so a new run with
a fault against that target may start.

Exit codes: 0 restored, or nothing to restore; 2 no fault journal in the
folder; 4 the stop command failed or timed out (the fault may still be in
place: run the command it prints by hand).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			logf := func(format string, a ...any) { fmt.Fprintf(stderr, "trigger: "+format+"\n", a...) }
			ran, err := runner.Restore(args[0], runner.DefaultStateDir(), logf)
			switch {
			case errors.Is(err, runner.ErrFaultNotRestored):
				return &ExitError{Code: ExitHarness, Err: err}
			case err != nil:
				return &ExitError{Code: ExitUsage, Err: err}
			case ran:
				fmt.Fprintf(stdout, "restored: the fault's stop command ran and succeeded\n")
			default:
				fmt.Fprintf(stdout, "nothing to restore: the fault's stop command already ran\n")
			}
			return nil
		},
	}
}
