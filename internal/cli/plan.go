package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
)

func newPlanCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	sf := scenarioFlags{stdin: stdin}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan [--json] [--var NAME=VALUE] [--var-file FILE] SCENARIO.hcl|-",
		Short: "Validate a scenario, size its spike and predict the outcome; sends nothing",
		Long: `plan reads a scenario and answers, from the closed forms of the model and
before any traffic is sent: is the planned spike a trigger at all, is the
service vulnerable (A·ρ ≥ 1), how long should it take to come back, and what
would make the test or the service better.

It exits as a run would if the model is right: 0 the gate would pass, 1 it
would fail, 3 the run would be inconclusive (the spike cannot trigger, or
observe ends before a trap can show and the model does not see the service
back within it, or the gate's max_trap_probability, which one run never
judges, is all that stands), 2 the scenario is invalid.

A scenario "-" is read from standard input (named <stdin> in diagnostics;
its relative paths are taken from the working directory).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := sf.loadTest(cmd.Context(), args[0], stderr)
			if err != nil {
				return err
			}
			doc := analysis.Plan(t.Plan)
			if doc.TrapProbability, err = t.TrapProbability(cmd.Context()); err != nil {
				return modelError(err)
			}
			short := doc.ObserveTooShort()
			extra := func(w io.Writer) error {
				if short != "" {
					if _, err := fmt.Fprintf(w, "\nA run would end inconclusive (exit 3): %s\n", short); err != nil {
						return err
					}
				}
				if text := convert.GRPCText(t.Scenario); text != "" {
					if _, err := fmt.Fprintf(w, "\ngRPC calls:\n  %s\n", strings.ReplaceAll(text, "\n", "\n  ")); err != nil {
						return err
					}
				}
				if text := touchesText(doc.Scenario.Touches, "  "); text != "" {
					_, err := fmt.Fprintf(w, "\nBesides its load, a run of this scenario:\n%s", redact(text, t.Scenario.Secrets))
					return err
				}
				return nil
			}
			if err := emit(stdout, doc, asJSON, extra); err != nil {
				return err
			}
			if short != "" {
				return &ExitError{Code: ExitInconclusive, Reported: true}
			}
			return exitFor(doc)
		},
	}
	sf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result document as JSON")
	return cmd
}

// emit prints the document as JSON or text; extra prints more text after it.
func emit(w io.Writer, doc analysis.Document, asJSON bool, extra func(io.Writer) error) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return &ExitError{Code: ExitHarness, Err: err}
		}
		return nil
	}
	if err := printDocument(w, doc); err != nil {
		return &ExitError{Code: ExitHarness, Err: err}
	}
	if extra != nil {
		if err := extra(w); err != nil {
			return &ExitError{Code: ExitHarness, Err: err}
		}
	}
	return nil
}
