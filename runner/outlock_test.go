//go:build unix

package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// prepareAndRelease is prepareOutDir, its lock released at once.
func prepareAndRelease(dir string, overwrite, embedded bool) error {
	l, err := prepareOutDir(dir, overwrite, embedded)
	l.Unlock()
	return err
}

// A run holds its folder's lock for its life: a second run into the
// folder, with --overwrite or without, is refused with ErrOutLocked and the
// running run's files are untouched; once the lock is released,
// --overwrite replaces the run (issue 32, finding 9).
func TestOverwriteRefusesARunInProgress(t *testing.T) {
	dir := t.TempDir()
	held, err := prepareOutDir(dir, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	files := map[string]string{ResultFile: "{}", "timeline.csv": "t_s\n0\n", filepath.Join(promDataDir, "wal", "00000000"): "x"}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, overwrite := range []bool{true, false} {
		_, err := prepareOutDir(dir, overwrite, true)
		if !errors.Is(err, ErrOutLocked) {
			t.Fatalf("overwrite %v: err = %v, want ErrOutLocked", overwrite, err)
		}
		if !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
			t.Errorf("the refusal does not name the holder: %v", err)
		}
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("%s of the run in progress: %q, %v; want it untouched", name, b, err)
		}
	}
	held.Unlock()
	if err := prepareAndRelease(dir, true, true); err != nil {
		t.Fatalf("--overwrite once the run ended: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--overwrite of an ended run left its result.json: %v", err)
	}
}
