//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO in place of a run's file is refused at once (exit 2), instead of
// `trigger report` waiting forever for a writer.
func TestReportCommandFIFO(t *testing.T) {
	for _, file := range []string{"result.json", "timeline.csv"} {
		t.Run(file, func(t *testing.T) {
			dir, _ := reportFolder(t)
			p := filepath.Join(dir, file)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			code, _, stderr := runBounded(t, "report", dir)
			if code != ExitUsage || !strings.Contains(stderr, file+": not a regular file (a named pipe)") {
				t.Errorf("exit %d, stderr %q; want %d and the FIFO refused", code, stderr, ExitUsage)
			}
		})
	}
}
