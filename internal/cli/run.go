package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

func newRunCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var asJSON, yes, overwrite, force bool
	var out, metricsAddr, abortFile string
	var seed uint64
	var tf trialsFlags
	var ff fleetFlags
	var cf consentFlags
	cmd := &cobra.Command{
		Use:   "run [--yes] [--out DIR] [--json] [--trials N] [--var NAME=VALUE] SCENARIO.hcl",
		Short: "Run the destructive trigger test against the scenario's target",
		Long: `run drives the scenario's baseline, spike and baseline against its target
with the clients' real timeout and retry policy, reads the service's metrics
from Prometheus, and answers: did the service come back (and how long did it
take against the prediction), is it trapped, and what amplification does it
really experience. Then it gates.

It refuses any host not in the scenario's allow_hosts, checks Prometheus and
every query before sending anything, and asks for confirmation on a terminal
unless --yes (without a terminal, --yes is required). Brakes: the
scenario's stop_when conditions (evaluated twice a second from the preflight
on; one that fires or cannot be evaluated stops the run) and --abort-file
stop the load within a second and end with exit 5; so does max_duration
(then the run judges what it saw). Ctrl-C stops the load within a second and
writes what was measured; a second Ctrl-C stops waiting for late metrics and
writes at once; a third exits on the spot.

A scenario's fault block takes capacity away instead of a spike: its start
command runs after the warmup, its stop command when its duration is over,
and always, within a second, on any other end (Ctrl-C, SIGTERM, SIGHUP, a
brake, max_duration, a lost Prometheus). A stop that fails is exit 4 with
the command to run by hand. A fault guard, a process of its own, runs the
stop if the run dies without (SIGKILL, out of memory); a run killed with
its guard leaves a journal for 'trigger restore OUT_DIR', and a new fault
against the same target is refused until then unless --force.

The run's folder (--out) receives timeline.csv (appended every second),
result.json, the reports, and the embedded Prometheus' data. A folder that
is not empty is refused unless --overwrite, which replaces the previous run;
a run holds a lock on its folder (.lock) for its life, and a folder a run
still in progress holds is refused, --overwrite or not.

--trials N (2 to 1000) runs the same test N times with seeds --seed,
--seed+1, …, each in OUT/trial-NN-seedS after a rest (--rest) and on a
service a light probe saw back (as campaign's cells), and reports the
share of trials trapped, metastable and recovered with Wilson 95 %
intervals beside the model's P(trap), the recovery time's median and
spread, in OUT/trials.json and OUT/trials.md. It stops early: without
gate.max_trap_probability once the sequential rule has placed P(trapped)
above or below 50 % (two agreeing trials far from the boundary; the
odds, not every trial's gate, decide when), with it as soon as the gate
can no longer pass (by the sequential rule too when N is fewer than the
clean trials the gate takes); --all-trials runs all N. With
max_trap_probability = p the series passes when the interval's upper end
over the trials that triggered (metastable counted as trapped; a trial
that did not trigger counts neither way) is at most p and no trial failed
another criterion of its gate; it fails on a trap that keeps the bound
over p; it is inconclusive (3) when too few clean trials told. Without it
every trial must pass its own gate. No trial posts the scenario's
webhook. A service
that does not come back before a trial fails the series. One run without
--trials reports max_trap_probability as not judged (exit 3 when nothing
else fails).

Exit codes: 0 passed, 1 gate failed, 2 usage or scenario error, 3 inconclusive
(no trigger, baseline already failing, metrics missing, signals could not
tell), 4 harness error (Prometheus unreachable, scrape target down, a
fault's stop command failed: the fault may still be in place),
5 stopped by a brake (stop_when, --abort-file), 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			test, err := sf.loadTest(cmd.Context(), args[0], stderr)
			if err != nil {
				return err
			}
			s := test.Scenario
			if ff.dryRun {
				return ff.printManifests(stdout, test)
			}
			fleetOpts, err := ff.options(test, args[0], sf.resolved, metricsAddr)
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("out", fmt.Sprintf("%s-%s", s.Name, time.Now().Format("20060102-150405")))
			}
			if err := tf.check(cmd); err != nil {
				return err
			}
			if err := test.Run.CheckConsent(cf.consent()); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w; nothing was sent", err)}
			}
			if tf.n > 0 {
				return tf.run(cmd.Context(), test, out, runner.Options{
					Seed:          seed,
					MetricsListen: metricsAddr,
					AbortFile:     abortFile,
					Overwrite:     overwrite,
					Force:         force,
					FaultGuard:    faultGuardOf(cmd.Context()),
					Hurry:         hurryOf(cmd.Context()),
					Fleet:         fleetOpts,
					Consent:       cf.consent(),
				}, yes, asJSON, stdout, stderr)
			}
			tf.warnSingle(test, stderr)
			if err := confirm(test, yes, os.Stdin, stderr); err != nil {
				return err
			}
			pp := newProgressPrinter(stderr)
			res, err := runner.Run(cmd.Context(), runner.Options{
				Test:          test,
				OutDir:        out,
				Seed:          seed,
				Progress:      pp.update,
				Logf:          pp.note,
				MetricsListen: metricsAddr,
				AbortFile:     abortFile,
				Overwrite:     overwrite,
				Force:         force,
				FaultGuard:    faultGuardOf(cmd.Context()),
				Hurry:         hurryOf(cmd.Context()),
				Fleet:         fleetOpts,
				Consent:       cf.consent(),
			})
			pp.end()
			return printRun(stdout, res, err, asJSON, true)
		},
	}
	sf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result document as JSON")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation (required without a terminal)")
	cmd.Flags().StringVar(&out, "out", "", "the run's output folder (default out/NAME-TIMESTAMP)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the arrival schedule and the jitter")
	cmd.Flags().StringVar(&abortFile, "abort-file", "", "stop the run (exit 5) as soon as this path exists, e.g. for an operator or another job to pull the brake")
	cmd.Flags().BoolVar(&force, "force", false, "start the scenario's fault even though a journal says one against the same target is still pending (see trigger restore)")
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "reuse a non-empty --out: remove the previous run there, its Prometheus data included")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve the driver's trigger_* metrics at this address for an outside Prometheus (e.g. :9464, which binds 127.0.0.1; a host that is not loopback is warned about)")
	tf.register(cmd)
	ff.register(cmd)
	cf.register(cmd)
	return cmd
}

// confirm asks before overloading a target, unless --yes; with no terminal
// to ask on, it refuses.
func confirm(t *convert.Test, yes bool, in *os.File, stderr io.Writer) error {
	if yes {
		return nil
	}
	if !term.IsTerminal(int(in.Fd())) {
		return &ExitError{Code: ExitUsage, Err: errors.New("refusing to overload a target without confirmation: stdin is not a terminal; pass --yes")}
	}
	fmt.Fprint(stderr, confirmation(t))
	line, _ := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(strings.ToLower(line)) != "yes" {
		return &ExitError{Code: ExitUsage, Err: errors.New("not confirmed; nothing was sent")}
	}
	return nil
}

// printRun prints a run's result as run and judge do (the document, and
// with files, where they are) and returns the exit: the runner's error
// when there is one, else the document's (exitFor).
func printRun(stdout io.Writer, res *runner.Result, err error, asJSON, files bool) error {
	if res == nil {
		return runError(err)
	}
	if perr := emit(stdout, res.Document, asJSON, func(w io.Writer) error {
		if !files {
			return nil
		}
		_, err := io.WriteString(w, writtenText(res.OutDir, res.Written))
		return err
	}); perr != nil {
		return perr
	}
	if err != nil {
		return runError(err)
	}
	return exitFor(res.Document)
}

// runError maps a runner error to its exit code.
func runError(err error) error {
	var re *runner.Error
	if !errors.As(err, &re) {
		return &ExitError{Code: ExitHarness, Err: err}
	}
	code := map[runner.Kind]int{
		runner.KindUsage:        ExitUsage,
		runner.KindInconclusive: ExitInconclusive,
		runner.KindHarness:      ExitHarness,
		runner.KindInterrupted:  ExitInterrupted,
		runner.KindStopped:      ExitStopped,
	}[re.Kind]
	if code == 0 {
		code = ExitHarness
	}
	return &ExitError{Code: code, Err: err}
}

// confirmation is what the operator is asked to agree to: everything the
// run will touch outside this process, every text from the scenario
// escaped (safetext) and every secret's value redacted.
func confirmation(t *convert.Test) string {
	s := t.Scenario
	var b strings.Builder
	peak := s.Load.Spike.Multiplier * s.Load.Baseline
	target := safetext.Line(vocab.Readable(s.Target.Mix()[0].URL, s.Target.Slots))
	if n := len(s.Target.Mix()); n > 1 {
		target = fmt.Sprintf("%s and %d more requests", target, n-1)
	}
	if s.Fault != nil {
		fmt.Fprintf(&b, "This takes capacity away from %s on purpose, for %s, under %.0f first attempts/s with retries on top.\n", target, s.Fault.Duration, s.Load.Baseline)
	} else {
		fmt.Fprintf(&b, "This overloads %s on purpose: %.0f first attempts/s for %s, with retries on top.\n", target, peak, s.Load.Spike.Duration)
	}
	if p := s.Prometheus; p != nil {
		for _, u := range p.Scrape {
			fmt.Fprintf(&b, "  %-14s %s every %s\n", "scrapes", safetext.Line(u), orDefault(p.ScrapeInterval, time.Second))
		}
	}
	for _, c := range s.StopWhen {
		where := "the run's Prometheus"
		if c.Address != "" {
			where = c.Address
		}
		fmt.Fprintf(&b, "  %-14s %s (%s) on %s\n", "stops when", safetext.Line(c.Name), safetext.Line(c.Query), safetext.Line(where))
	}
	if ot := s.OnTrap; ot != nil && ot.Action != vocab.TrapCommand {
		fmt.Fprintf(&b, "  %-14s %s\n", "on a trap", ot.Action)
	}
	b.WriteString(touchesText(t.Plan.Scenario.Touches, "  "))
	b.WriteString("Proceed? Type yes: ")
	return redact(b.String(), s.Secrets)
}

// redact replaces the values of sensitive variables in text for the user.
func redact(text string, secrets []string) string {
	for _, v := range secrets {
		if v != "" {
			text = strings.ReplaceAll(text, v, scenarios.SensitiveValue)
		}
	}
	return text
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
