package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// campaign --dry-run with trials says so and counts every trial among the
// runs (issue 37).
func TestCampaignDryRunWithTrials(t *testing.T) {
	src, err := os.ReadFile("../../examples/campaign.hcl")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "trials.hcl")
	if err := os.WriteFile(f, []byte(strings.Replace(string(src), "  rest         = \"5s\"\n", "  rest         = \"5s\"\n  trials       = 4\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(t, "campaign", "--dry-run", f)
	if code != ExitPassed {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"Odds      up to 4 trials a cell, until a sequential test tells its P(trap) from 0.5", "of up to 4 trials each (", " runs; the campaign takes at most"} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run lacks %q:\n%s", want, out)
		}
	}
}
