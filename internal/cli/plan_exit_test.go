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

// TestPlanTrapProbabilityNotJudged: a gate with max_trap_probability is
// not judged by plan (nor by one run): exit 3, naming the clean trials
// `trigger run --trials N` needs; a trapped prediction still fails.
func TestPlanTrapProbabilityNotJudged(t *testing.T) {
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		code int
	}{{"recovers", ExitInconclusive}, {"trapped", ExitGateFailed}} {
		src, err := os.ReadFile(filepath.Join(root, "scenarios", c.name+".hcl"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.name+".hcl")
		text := string(src) + "\ngate {\n  max_trap_probability = 0.05\n}\n"
		if strings.Contains(string(src), "gate {") {
			text = strings.Replace(string(src), "gate {", "gate {\n  max_trap_probability = 0.05", 1)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, "plan", path)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, code, c.code, stderr)
		}
		if !strings.Contains(stdout, "trap_probability not judged") || !strings.Contains(stdout, "? max_trap_probability 0.05 not judged") || !strings.Contains(stdout, "--trials N with N ≥ 73") {
			t.Errorf("%s: plan does not say the gate takes 73 clean trials:\n%s", c.name, stdout)
		}
	}
}
