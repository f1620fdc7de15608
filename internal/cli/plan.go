package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
)

func newPlanCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan [--json] [--var NAME=VALUE] SCENARIO.hcl",
		Short: "Validate a scenario, size its spike and predict the outcome; sends nothing",
		Long: `plan reads a scenario and answers, from the closed forms of the model and
before any traffic is sent: is the planned spike a trigger at all, is the
service vulnerable (A·ρ ≥ 1), how long should it take to come back, and what
would make the test or the service better.

It exits as a run would if the model is right: 0 the gate would pass, 1 it
would fail, 3 the spike cannot trigger (the test would be inconclusive),
2 the scenario is invalid.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := sf.loadTest(cmd.Context(), args[0], stderr)
			if err != nil {
				return err
			}
			doc := analysis.Plan(t.Plan)
			var extra func(io.Writer) error
			if text := touchesText(doc.Scenario.Touches, "  "); text != "" {
				extra = func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "\nBesides its load, a run of this scenario:\n%s", redact(text, t.Scenario.Secrets))
					return err
				}
			}
			if err := emit(stdout, doc, asJSON, extra); err != nil {
				return err
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
