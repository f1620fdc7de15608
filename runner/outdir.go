package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/trigger-test/trigger/runner/report"
)

// runFiles are what a run writes in its folder; --overwrite removes these
// and nothing else.
var runFiles = []string{
	report.ResultFile, report.TimelineFile, report.HTMLFile, report.MarkdownFile,
	report.JUnitFile, report.SVGFile, report.PNGFile, promDataDir,
}

// promDataDir is the embedded Prometheus' data under the run's folder.
const promDataDir = "prometheus"

// prepareOutDir creates the run's folder. A folder that already holds
// anything is refused (a run never overwrites a run, and an embedded TSDB
// left there would answer the new run's queries with the old run's data)
// unless overwrite, which removes the previous run's files first, its
// Prometheus data among them, and refuses a folder holding anything else.
func prepareOutDir(dir string, overwrite bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) == 0:
		return nil
	case !overwrite:
		return fmt.Errorf("%w: %s holds %d entries (a previous run?); choose another --out, or pass --overwrite to replace that run", ErrOutExists, dir, len(entries))
	}
	known := map[string]bool{}
	for _, f := range runFiles {
		known[f] = true
	}
	for _, e := range entries {
		if !known[e.Name()] {
			return fmt.Errorf("%w: %s holds %s, which no run writes; --overwrite replaces a previous run only", ErrOutExists, dir, e.Name())
		}
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
