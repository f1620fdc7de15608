package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/runner"
)

func newCheckCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var cf consentFlags
	var asJSON, force, noRequest bool
	cmd := &cobra.Command{
		Use:   "check [--var NAME=VALUE] [--allow-commands] [--no-request] SCENARIO.hcl",
		Short: "Run the preflight of run, and nothing destructive",
		Long: `check takes every step run takes before its load, and no load: the scenario,
the allowlist, the consent run would need (--allow-commands, --secret-hosts),
a pending fault's journal, the baseline file, the commands the scenario runs
(found and executable; never run), the target's TLS handshake, Prometheus
reached with its credentials and TLS, every query answering (or named as the
driver's own, whose series come with the load), the scrape interval of each
query's series, the stop conditions evaluated, and one request to the target
sent as a first attempt is (--no-request leaves it out). It prints what a run
would touch besides its load, then each step with ok or what to fix.

Exit codes: 0 every step passed; otherwise the code run would end with at
the first step that failed: 2 usage or scenario error (a host not allowed,
consent missing, a pending fault), 3 the target does not answer its request
as the scenario's ok statuses say (a run would find the baseline failing),
4 Prometheus, a query or a command (harness), 5 a stop condition fires,
130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := sf.loadTest(cmd.Context(), args[0], stderr)
			if err != nil {
				return err
			}
			steps, err := runner.Check(cmd.Context(), runner.CheckOptions{
				Run:       runner.Options{Test: t, Consent: cf.consent(), Force: force},
				NoRequest: noRequest,
			})
			if err != nil {
				return runError(err)
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(checkJSON(steps)); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			} else if err := printCheck(stdout, t.Scenario.Name, analysis.Plan(t.Plan).Scenario.Touches, t.Scenario.Secrets, steps, noRequest); err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			for _, s := range steps {
				if !s.OK {
					e := runError(&runner.Error{Kind: s.Kind, Err: fmt.Errorf("check: %s failed", s.Name)}).(*ExitError)
					e.Reported = true
					return e
				}
			}
			return nil
		},
	}
	sf.register(cmd)
	cf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the steps as JSON")
	cmd.Flags().BoolVar(&force, "force", false, "do not check for a pending fault's journal (as run --force)")
	cmd.Flags().BoolVar(&noRequest, "no-request", false, "send nothing to the target (the TLS handshake aside)")
	return cmd
}

// checkStepJSON is one step as check --json prints it.
type checkStepJSON struct {
	Step   string `json:"step"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Exit   int    `json:"exit,omitempty"`
}

func checkJSON(steps []runner.CheckStep) []checkStepJSON {
	out := make([]checkStepJSON, 0, len(steps))
	for _, s := range steps {
		j := checkStepJSON{Step: s.Name, OK: s.OK, Detail: s.Detail}
		if !s.OK {
			j.Exit = runError(&runner.Error{Kind: s.Kind, Err: fmt.Errorf("%s", s.Name)}).(*ExitError).Code
		}
		out = append(out, j)
	}
	return out
}

// printCheck writes what a run would touch and each step.
// noRequest says the target was not asked (--no-request).
func printCheck(w io.Writer, name string, touches *analysis.Touches, secrets []string, steps []runner.CheckStep, noRequest bool) error {
	if _, err := fmt.Fprintf(w, "Checking %s: the preflight of run, no load\n", safetext.Line(name)); err != nil {
		return err
	}
	if text := touchesText(touches, "  "); text != "" {
		if _, err := fmt.Fprintf(w, "\nBesides its load, a run of this scenario:\n%s\n", redact(text, secrets)); err != nil {
			return err
		}
	}
	failed := 0
	for _, s := range steps {
		mark := "ok  "
		if !s.OK {
			mark, failed = "FAIL", failed+1
		}
		if _, err := fmt.Fprintf(w, "%s  %-22s %s\n", mark, s.Name, safetext.Line(s.Detail)); err != nil {
			return err
		}
	}
	verdict := "every step passed: run has what it needs"
	if noRequest {
		verdict = "every step passed; the target was not asked (--no-request): whether it answers, the run's warmup will tell"
	}
	if failed > 0 {
		verdict = fmt.Sprintf("%d step(s) failed: run would stop there; nothing was sent to the target", failed)
	}
	_, err := fmt.Fprintf(w, "\n%s\n", verdict)
	return err
}
