// Package cli is the command line of trigger: subcommands, flags, exit codes
// and the text and JSON printers (docs/design.md, "Layout" and "CLI and
// exit codes").
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Main runs the command line with args (without the program name) and
// returns the process exit code: 0 passed, 1 gate failed, 2 usage or
// scenario error, 3 inconclusive, 4 harness error, 5 stopped by a brake,
// 130 interrupted.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return mainWith(ctx, args, os.Stdin, stdout, stderr)
}

// mainWith is Main with plan reading a scenario "-" from stdin.
func mainWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootWith(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitPassed
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil && !ee.Reported {
			fmt.Fprintf(stderr, "trigger: %v\n", ee.Err)
		}
		return ee.Code
	}
	// Anything cobra itself returns is a usage error: unknown command or
	// flag, wrong number of arguments.
	fmt.Fprintf(stderr, "trigger: %v\nRun 'trigger --help' for usage.\n", err)
	return ExitUsage
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	return newRootWith(os.Stdin, stdout, stderr)
}

// newRootWith is the command tree with plan reading a scenario "-" from
// stdin.
func newRootWith(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "trigger",
		Short: "Find out whether one overload can leave a service down for good",
		Long: `trigger sizes a load spike that pushes a service's queue wait past its
clients' timeout, drives it with the clients' real timeout and retry policy,
returns demand to normal and watches whether the service comes back.

A service whose clients time out and retry, and which keeps serving requests
after their clients gave up, has two stable states once A·ρ ≥ 1 (A: work per
first attempt when every attempt fails; ρ: utilization). A trigger test finds
out which one it lands in.

Exit codes: 0 passed, 1 gate failed, 2 usage or scenario error,
3 inconclusive (no trigger, data missing), 4 harness or infrastructure error,
5 stopped by a brake (stop_when, --abort-file), 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       toolVersion(),
	}
	root.SetVersionTemplate("trigger {{.Version}}\n")
	root.SetFlagErrorFunc(suggestFlag)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newPlanCommand(stdin, stdout, stderr), newCheckCommand(stdout, stderr), newSimulateCommand(stdout, stderr), newRunCommand(stdout, stderr), newDemoCommand(stdout, stderr), newReportCommand(stdout, stderr), newAgentCommand(stderr), newImportCommand(stdout, stderr), newRestoreCommand(os.Stdin, stdout, stderr), newFaultGuardCommand(os.Stdin), newCompareCommand(stdout), newJudgeCommand(stdout, stderr), newPrometheusCommand(stdout), newCampaignCommand(stdout, stderr), newVersionCommand(stdout))
	return root
}
