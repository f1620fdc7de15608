//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/runner"
)

// `trigger run --overwrite` into the folder of a run still in progress
// (its lock held) is refused, exit 2, before anything is sent, and the
// running run's files are untouched (issue 32, finding 9).
func TestRunOverwriteRefusesLockedFolder(t *testing.T) {
	dir := t.TempDir()
	lock, err := runner.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	result := filepath.Join(dir, "result.json")
	if err := os.WriteFile(result, []byte("{\"kind\":\"run\"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "run", "--yes", "--overwrite", "--out", dir, "scenarios/recovers.hcl")
	if code != ExitUsage || !strings.Contains(stderr, "in use by a run still in progress") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and the folder refused as in use", code, stderr, ExitUsage)
	}
	if b, err := os.ReadFile(result); err != nil || string(b) != "{\"kind\":\"run\"}" {
		t.Errorf("the running run's result.json: %q, %v; want it untouched", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries in the folder, want the 2 it had (result.json, %s)", len(entries), runner.LockFile)
	}
}
