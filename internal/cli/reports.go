package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/runner/report"
)

// writtenText tells where a run's files are, naming only those written
// (written: names in dir): "Report: dir/report.html" only when it was
// written, and nothing at all when nothing was.
func writtenText(dir string, written []string) string {
	var b strings.Builder
	var others []string
	html := false
	for _, name := range written {
		if name == report.HTMLFile {
			html = true
		} else {
			others = append(others, name)
		}
	}
	if html {
		fmt.Fprintf(&b, "\nReport: %s\n", filepath.Join(dir, report.HTMLFile))
	}
	switch {
	case len(others) > 0 && html:
		fmt.Fprintf(&b, "(%s in %s)\n", strings.Join(others, ", "), dir)
	case len(others) > 0:
		fmt.Fprintf(&b, "\nWritten in %s: %s (no report.html)\n", dir, strings.Join(others, ", "))
	case !html:
		fmt.Fprintf(&b, "\nNothing was written in %s\n", dir)
	}
	return b.String()
}

func newReportCommand(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Re-render the reports of a recorded run from its result.json and timeline.csv",
		Long: `report re-renders report.html, timeline.png, timeline.svg, report.md and
junit.xml in a run's folder from its result.json and timeline.csv, for
example after a crash, or with a newer version of trigger. It sends nothing.

It reads only regular files, at most 64 MiB of result.json and 512 MiB of
timeline.csv: a named pipe, a device or a larger file is refused. result.json
is read and checked first; timeline.csv is streamed, and a timeline of more
than 20 000 rows is charted from evenly spaced rows of it (every 2nd, 4th,
...), so that memory stays bounded whatever its length.

Exit codes: 0 every report was written; 2 the folder's files cannot be
used as they are (result.json missing, not a regular file, too large or
not a result document; timeline.csv refused, unreadable, or cut short, as
a crash leaves its last row: the reports are then still written from the
whole rows, and the error names the cut row); 4 a report could not be
written. A damaged input is 2, not 4: nothing failed in trigger or its
infrastructure, and the same folder gives the same result until its files
are fixed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, report.ResultFile)); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s is not a run's folder: %w", dir, err)}
			}
			// Only the reports written are named: one a full disk refused
			// is in the error, not in the list.
			written, err := report.RenderDir(dir)
			for _, f := range written {
				fmt.Fprintln(stdout, filepath.Join(dir, f))
			}
			if err != nil {
				return &ExitError{Code: reportExit(err), Err: err}
			}
			return nil
		},
	}
}

// reportExit is the exit code of a RenderDir error: usage/input for an
// error in the folder's files (report.InputError), harness otherwise.
func reportExit(err error) int {
	var ie *report.InputError
	if errors.As(err, &ie) {
		return ExitUsage
	}
	return ExitHarness
}
