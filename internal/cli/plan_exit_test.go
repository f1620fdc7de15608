package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan whose observe ends before a trap can show, and before the model
// sees the service back, exits 3 as the run would (inconclusive), and says
// so; it exited 1 (trapped) or even 0 (recovered after observe) before.
// An observe long enough keeps the model's exit code.
func TestPlanObserveTooShortIsInconclusive(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	scenario := func(name, observe string) string {
		src, err := os.ReadFile(filepath.Join(root, "scenarios", name+".hcl"))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(src), `observe = "3m"`, `observe = "`+observe+`"`, 1)
		if text == string(src) && observe != "3m" {
			t.Fatalf("%s.hcl has no observe = \"3m\" to shorten", name)
		}
		path := filepath.Join(dir, name+"-"+observe+".hcl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		name, observe string
		code          int
	}{
		{"trapped", "2s", ExitInconclusive},  // trapped, but a run cannot tell within 2 s
		{"recovers", "2s", ExitInconclusive}, // back after 67 s, a run watches 2 s
		{"trapped", "3m", ExitGateFailed},
		{"recovers", "3m", ExitPassed},
	} {
		path := scenario(c.name, c.observe)
		for _, asJSON := range []bool{false, true} {
			args := []string{"plan", path}
			if asJSON {
				args = []string{"plan", "--json", path}
			}
			code, stdout, stderr := run(t, args...)
			if code != c.code {
				t.Errorf("%s with observe %s (json %v): exit %d, want %d; stderr %q", c.name, c.observe, asJSON, code, c.code, stderr)
			}
			says := strings.Contains(stdout, "A run would end inconclusive (exit 3)")
			if !asJSON && says != (c.code == ExitInconclusive) {
				t.Errorf("%s with observe %s: the text says inconclusive %v, exit %d:\n%s", c.name, c.observe, says, code, stdout)
			}
		}
	}
}
