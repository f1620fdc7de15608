package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/trigger-test/trigger/runner/report"
)

// writeReports names only the files it wrote: a report a full disk
// refuses (here a folder in its place) is not in Result.Written, so the
// CLI does not print "Report: …" for it (issue 32, finding 12).
func TestWriteReportsNamesOnlyWrittenFiles(t *testing.T) {
	src := filepath.Join("report", "testdata", "recovered")
	doc, err := report.ReadResult(filepath.Join(src, report.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := report.ReadDirTimeline(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, report.HTMLFile, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	written, err := writeReports(dir, doc, rows, nil, nil)
	if err == nil {
		t.Error("no error for the report.html that could not be written")
	}
	want := []string{report.SVGFile, report.PNGFile, report.MarkdownFile, report.JUnitFile}
	if fmt.Sprint(written) != fmt.Sprint(want) {
		t.Errorf("written %q, want %q", written, want)
	}
}
