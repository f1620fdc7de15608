package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/vocab"
)

func newCompareCommand(stdout io.Writer) *cobra.Command {
	var asJSON, asMarkdown bool
	var junit, page, maxRecovery, maxAmp string
	cmd := &cobra.Command{
		Use:   "compare [--json | --markdown] [--junit FILE] BASE CANDIDATE",
		Short: "Compare a candidate run with a baseline run of the same test",
		Long: `compare reads two runs (their folders, or their result.json files) of the
same scenario against the same target and load, and says whether the
candidate regressed: its verdict worse (recovered, metastable, trapped), or
a figure grown beyond noise (the candidate's interval above the
baseline's) by more than its threshold. It shows the recovery time, A_fail,
the hidden factor, the peak wait, the lost work and the failed requests,
each with both runs' intervals and the difference; the last three are
shown, not gated. It sends nothing.

Exit codes: 0 no regression; 1 a regression; 2 a run's files cannot be
read; 3 the runs are not comparable (different scenarios, targets or load,
or a run without a judged verdict: the output says which).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			th := analysis.DefaultCompareThresholds
			var err error
			if th.MaxRecoveryRegression, err = vocab.ParseShare(maxRecovery); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--max-recovery-regression: %w", err)}
			}
			if th.MaxAmplificationRegression, err = vocab.ParseShare(maxAmp); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--max-amplification-regression: %w", err)}
			}
			base, baseRows, err := report.ReadRun(args[0])
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			cand, candRows, err := report.ReadRun(args[1])
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			c := analysis.Compare(base, cand, th)
			switch {
			case asJSON:
				b, err := json.MarshalIndent(c, "", "  ")
				if err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
				_, err = fmt.Fprintf(stdout, "%s\n", b)
				if err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			case asMarkdown:
				if err := report.WriteCompareMarkdown(stdout, c, args[0], args[1]); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			default:
				if err := report.WriteCompareText(stdout, c, args[0], args[1]); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			}
			if junit != "" {
				f, err := os.Create(junit)
				if err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
				werr := report.WriteCompareJUnit(f, c)
				if cerr := f.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil {
					return &ExitError{Code: ExitHarness, Err: werr}
				}
			}
			if page != "" {
				if err := writeComparePage(page, report.CompareRuns{Comparison: c, Base: base, Cand: cand,
					BaseRows: baseRows, CandRows: candRows, BaseName: args[0], CandName: args[1]}); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			}
			switch {
			case !c.Comparable:
				return &ExitError{Code: ExitInconclusive, Reported: true}
			case c.Regressed:
				return &ExitError{Code: ExitGateFailed, Reported: true}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().BoolVar(&asMarkdown, "markdown", false, "print the comparison as Markdown, for a pull-request comment")
	cmd.Flags().StringVar(&junit, "junit", "", "also write the comparison as JUnit XML to this file (one case per figure)")
	cmd.Flags().StringVar(&page, "html", "", "also write the comparison as an HTML page to this file, both timelines overlaid at the spike's start")
	cmd.Flags().StringVar(&maxRecovery, "max-recovery-regression", "20%", "the largest increase of the recovery time that is no regression")
	cmd.Flags().StringVar(&maxAmp, "max-amplification-regression", "10%", "the largest increase of A_fail and of the hidden factor that is no regression")
	cmd.MarkFlagsMutuallyExclusive("json", "markdown")
	return cmd
}

// writeComparePage writes the comparison's HTML page to path, whole or
// not at all.
func writeComparePage(path string, r report.CompareRuns) error {
	return report.WriteFileAtomic(filepath.Dir(path), filepath.Base(path), func(w io.Writer) error { return report.WriteCompareHTML(w, r) })
}
