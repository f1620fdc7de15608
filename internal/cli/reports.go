package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner/report"
)

// reportPath is the report a person opens first.
func reportPath(dir string) string { return filepath.Join(dir, report.HTMLFile) }

func newReportCommand(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Re-render the reports of a recorded run from its result.json and timeline.csv",
		Long: `report re-renders report.html, timeline.png, timeline.svg, report.md and
junit.xml in a run's folder from its result.json and timeline.csv, for
example after a crash, or with a newer version of trigger. It sends nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, report.ResultFile)); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s is not a run's folder: %w", dir, err)}
			}
			if err := report.RenderDir(dir); err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			for _, f := range report.ReportFiles {
				fmt.Fprintln(stdout, filepath.Join(dir, f))
			}
			return nil
		},
	}
}
