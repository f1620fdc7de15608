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

// campaign --dry-run with too few trials for its level warns, naming the
// trials needed: at 0.05 no cell of 5 trials can be called below it.
func TestCampaignDryRunWarnsOfTooFewTrials(t *testing.T) {
	src, err := os.ReadFile("../../examples/campaign.hcl")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "trials.hcl")
	if err := os.WriteFile(f, []byte(strings.Replace(string(src), "  rest         = \"5s\"\n", "  rest         = \"5s\"\n  trials       = 5\n  trap_probability = 0.05\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errb := run(t, "campaign", "--dry-run", f)
	if code != ExitPassed {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"Too few trials to decide", "only after 42 clean trials", "Set trials to at least 42"} {
		if !strings.Contains(errb, want) {
			t.Errorf("--dry-run's warnings lack %q:\n%s", want, errb)
		}
	}
}
