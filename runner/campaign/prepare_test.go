package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/trigger-test/trigger/runner"
)

// --overwrite replaces a previous campaign and nothing else: a folder
// holding anything a campaign does not write is refused whole.
func TestPrepareReplacesOnlyACampaign(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{File, "campaign.html", filepath.Join("cell-00-rho0.4-k3", "result.json")} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := prepareAndRelease(dir, false); !errors.Is(err, runner.ErrOutExists) {
		t.Errorf("without overwrite: %v", err)
	}
	if err := prepareAndRelease(dir, true); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != runner.LockFile {
		t.Errorf("%d entries left after overwrite", len(entries))
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, File), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareAndRelease(dir, true); !errors.Is(err, runner.ErrOutExists) {
		t.Errorf("a folder with notes.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Errorf("a refused overwrite removed %s: %v", File, err)
	}
}

// prepareAndRelease is prepare, its lock released at once.
func prepareAndRelease(dir string, overwrite bool) error {
	l, err := prepare(dir, overwrite)
	l.Unlock()
	return err
}

// A campaign's folder is locked for the campaign's life: a second
// campaign into it, --overwrite or not, is refused and the folder is
// untouched (issue 32, finding 9).
func TestPrepareRefusesALockedCampaign(t *testing.T) {
	dir := t.TempDir()
	held, err := prepare(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	cell := filepath.Join(dir, "cell-00-rho0.4-k3", "result.json")
	if err := os.MkdirAll(filepath.Dir(cell), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cell, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, overwrite := range []bool{false, true} {
		if _, err := prepare(dir, overwrite); !errors.Is(err, runner.ErrOutLocked) {
			t.Errorf("overwrite %v: err = %v, want ErrOutLocked", overwrite, err)
		}
	}
	if _, err := os.Stat(cell); err != nil {
		t.Errorf("a refused campaign touched the running one's cell: %v", err)
	}
	held.Unlock()
	if err := prepareAndRelease(dir, true); err != nil {
		t.Errorf("once released, --overwrite: %v", err)
	}
}
