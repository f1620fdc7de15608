package cli

import (
	"path/filepath"

	"github.com/trigger-test/trigger/runner"
)

// writeReports renders the reports of a finished run into its folder.
func writeReports(dir string, res *runner.Result) error {
	return nil
}

// reportPath is the report a person opens first.
func reportPath(dir string) string { return filepath.Join(dir, runner.ResultFile) }
