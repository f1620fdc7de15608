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
	if err := prepare(dir, false); !errors.Is(err, runner.ErrOutExists) {
		t.Errorf("without overwrite: %v", err)
	}
	if err := prepare(dir, true); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left after overwrite", len(entries))
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, File), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepare(dir, true); !errors.Is(err, runner.ErrOutExists) {
		t.Errorf("a folder with notes.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Errorf("a refused overwrite removed %s: %v", File, err)
	}
}
