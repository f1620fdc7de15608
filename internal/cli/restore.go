package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/runner"
)

func newRestoreCommand(stdin *os.File, stdout, stderr io.Writer) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "restore [--yes] OUT_DIR",
		Short: "Run the pending stop command of a fault a killed run left in place",
		Long: `restore reads the fault journal in a run's folder (` + runner.FaultJournalFile + `) and, when it
says the fault's stop command has not succeeded (the run was killed with
SIGKILL, or the stop failed), runs that stop command, from the scenario's
folder, within the fault's timeout, given the environment variables the
fault's env named (their values from restore's own environment: they
were written nowhere). A journal that says the fault was put
back makes it a no-op. On success the journal says restored and the
target's entry in the pending-fault registry is removed, so a new run with
a fault against that target may start.

It runs only a journal that the local pending-fault registry names (a run
on this machine started that fault), and the command the registry kept
for it; a folder from elsewhere is refused. It shows the command and its
folder and asks on a terminal; without one, --yes is required.

Exit codes: 0 restored, or nothing to restore; 2 no fault journal in the
folder, a journal the registry does not name, or not confirmed; 4 the stop
command failed or timed out (the fault may still be in place: run the
command it prints by hand).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			logf := func(format string, a ...any) {
				fmt.Fprintf(stderr, "trigger: %s\n", safetext.Line(fmt.Sprintf(format, a...)))
			}
			p, err := runner.FindPendingStop(args[0], runner.DefaultStateDir())
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			if p.Done {
				fmt.Fprintf(stdout, "nothing to restore: the fault's stop command already ran\n")
				return nil
			}
			if missing := p.MissingEnv(os.LookupEnv); len(missing) > 0 {
				fmt.Fprint(stderr, restorePrompt(p))
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w: %s (their values are written nowhere); set them as the run had them and run restore again",
					runner.ErrMissingEnv, safetext.Line(strings.Join(missing, ", ")))}
			}
			if err := confirmRestore(p, yes, stdin, stderr); err != nil {
				return err
			}
			err = p.Run(os.LookupEnv, logf)
			switch {
			case errors.Is(err, runner.ErrFaultNotRestored):
				return &ExitError{Code: ExitHarness, Err: err}
			case err != nil:
				return &ExitError{Code: ExitUsage, Err: err}
			}
			fmt.Fprintf(stdout, "restored: the fault's stop command ran and succeeded\n")
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "run the stop command without asking (required without a terminal)")
	return cmd
}

// restorePrompt is what restore shows before it runs a stop command: the
// command and its folder, escaped (safetext).
func restorePrompt(p *runner.PendingStop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "restore runs the stop command of fault %s against %s:\n", safetext.Line(p.Fault), safetext.Line(p.Target))
	fmt.Fprintf(&b, "  %-8s %s\n", "command", safetext.Argv(p.Stop))
	fmt.Fprintf(&b, "  %-8s %s\n", "in", safetext.Line(p.Dir))
	if len(p.Env) > 0 {
		fmt.Fprintf(&b, "  %-8s %s (from this shell's environment)\n", "env", safetext.Line(strings.Join(p.Env, ", ")))
	}
	fmt.Fprintf(&b, "  %-8s %s\n", "timeout", p.Timeout)
	return b.String()
}

// confirmRestore shows the command and asks before it runs, unless --yes;
// with no terminal to ask on, it refuses.
func confirmRestore(p *runner.PendingStop, yes bool, in *os.File, stderr io.Writer) error {
	fmt.Fprint(stderr, restorePrompt(p))
	if yes {
		return nil
	}
	if in == nil || !term.IsTerminal(int(in.Fd())) {
		return &ExitError{Code: ExitUsage, Err: errors.New("refusing to run the stop command without confirmation: stdin is not a terminal; read it, and pass --yes if it is what you mean to run")}
	}
	fmt.Fprint(stderr, "Type yes to run it: ")
	line, _ := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(strings.ToLower(line)) != "yes" {
		return &ExitError{Code: ExitUsage, Err: errors.New("not confirmed; nothing was run")}
	}
	return nil
}
