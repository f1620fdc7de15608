package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// repoRoot is the repository's root, absolute.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Tests start in internal/cli; a test that changed folder is elsewhere.
	for !fileExists(filepath.Join(wd, "go.mod")) {
		parent := filepath.Dir(wd)
		if parent == wd {
			t.Fatal("no go.mod above the working directory")
		}
		wd = parent
	}
	return wd
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runStdin is run with stdin as standard input, from dir (relative to the
// repository root).
func runStdin(t *testing.T, dir string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(filepath.Join(repoRoot(t), dir))
	var out, errb bytes.Buffer
	code = mainWith(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// `trigger plan -` reads the scenario from standard input: its
// diagnostics name <stdin>, and its relative paths are the working
// directory's.
func TestPlanReadsStdin(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "scenarios/recovers.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runStdin(t, ".", string(src), "plan", "-")
	if code != ExitPassed || !strings.Contains(stdout, "recovers") || !strings.Contains(stdout, "\n<stdin>\n") {
		t.Errorf("plan - < recovers.hcl: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	code, _, stderr = runStdin(t, ".", "scenario \"x\" {\n", "plan", "-")
	if code != ExitUsage || !strings.Contains(stderr, "<stdin>:1:") {
		t.Errorf("a broken scenario on stdin: exit %d, stderr %q; want exit 2 naming <stdin>:1:", code, stderr)
	}
	// Standard input is bounded as a scenario file is: 1 MiB.
	code, _, stderr = runStdin(t, ".", "#"+strings.Repeat("x", 1<<20)+"\n", "plan", "-")
	if code != ExitUsage || !strings.Contains(stderr, "<stdin>: larger than") {
		t.Errorf("a scenario over 1 MiB on stdin: exit %d, stderr %q; want exit 2, refused unread", code, stderr)
	}
	checkout, err := os.ReadFile(filepath.Join(root, "scenarios/testdata/good/checkout.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	// Its data file, users.csv, is found from the folder plan runs in.
	code, _, stderr = runStdin(t, "scenarios/testdata/good", string(checkout), "plan", "-")
	if code == ExitUsage {
		t.Errorf("checkout.hcl on stdin, run beside users.csv: exit 2: %s", stderr)
	}
	code, _, stderr = runStdin(t, ".", string(checkout), "plan", "-")
	if code != ExitUsage || !strings.Contains(stderr, "users.csv") {
		t.Errorf("checkout.hcl on stdin, run away from users.csv: exit %d, stderr %q; want exit 2 naming users.csv", code, stderr)
	}
}

// Variables come, as Terraform's, from TRIGGER_VAR_NAME, then each
// --var-file in order, then --var, the later winning; an environment
// variable for a name the scenario does not declare is ignored.
func TestVarFilesAndEnvironmentPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	first := file("first.tfvars", "# the first\nbaseline = 65\n")
	second := file("second.tfvars", "baseline   = 70\nmultiplier = 6 # k\n")
	t.Setenv("TRIGGER_VAR_baseline", "60")
	t.Setenv("TRIGGER_VAR_undeclared", "1")
	for _, c := range []struct {
		args     []string
		baseline float64
		k        float64
	}{
		{nil, 60, 5},
		{[]string{"--var-file", first}, 65, 5},
		{[]string{"--var-file", first, "--var-file", second}, 70, 6},
		{[]string{"--var-file", second, "--var-file", first}, 65, 6},
		{[]string{"--var", "baseline=75", "--var-file", second}, 75, 6},
	} {
		args := append(append([]string{"plan", "--json"}, c.args...), "scenarios/gateway-budget.hcl")
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, args...)
			doc := decode[analysis.Document](t, code, stdout, stderr)
			if doc.Scenario.DemandPerS != c.baseline || doc.Scenario.Multiplier != c.k {
				t.Errorf("%v: λ = %g, k = %g; want %g, %g", c.args, doc.Scenario.DemandPerS, doc.Scenario.Multiplier, c.baseline, c.k)
			}
		})
	}
}

// A var file's values are HCL literals, passed on as the text --var
// would carry: a string's own text, any other value's source.
func TestReadVarFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vars.tfvars")
	src := `name    = "checkout"
rate    = 0.25
enabled = true
hosts   = ["a.example", "b.example"]
labels  = { team = "pay" }
note    = <<EOT
two
lines
EOT
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readVarFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"name": "checkout", "rate": "0.25", "enabled": "true",
		"hosts": `["a.example", "b.example"]`, "labels": `{ team = "pay" }`, "note": "two\nlines\n",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d values, want %d: %v", len(got), len(want), got)
	}
}

// A bad var file is a usage error naming its file and line.
func TestVarFileErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		line       int
	}{
		{"syntax", "baseline = 60\nmultiplier = = 5\n", 2},
		{"reference", "baseline = 60\n\nmultiplier = var.k\n", 3},
		{"function", "baseline = max(1, 2)\n", 1},
		{"block", "baseline = 60\nload {\n}\n", 2},
		{"null", "baseline = null\n", 1},
		{"nested", "baseline = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", 1},
	} {
		path := filepath.Join(dir, c.name+".tfvars")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, "plan", "--var-file", path, "scenarios/gateway-budget.hcl")
			want := path + ":" + strconv.Itoa(c.line) + ":"
			if code != ExitUsage || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr, want)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		code, _, stderr := run(t, "plan", "--var-file", filepath.Join(dir, "absent.tfvars"), "scenarios/gateway-budget.hcl")
		if code != ExitUsage || !strings.Contains(stderr, "absent.tfvars") {
			t.Errorf("absent var file: exit %d, stderr %q", code, stderr)
		}
	})
}

// A sensitive variable given in a var file or the environment is as
// secret as one given with --var: plan shows it nowhere, in text or JSON.
func TestVariablesFromFilesAndEnvironmentStaySecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.tfvars")
	if err := os.WriteFile(path, []byte(`token = "var-file-secret-42"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, secret string
		args         []string
	}{
		{"var file", "var-file-secret-42", []string{"--var-file", path}},
		{"environment", "env-secret-43", nil},
	} {
		for _, asJSON := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s json %v", c.name, asJSON), func(t *testing.T) {
				t.Setenv("TRIGGER_VAR_token", "env-secret-43")
				args := append([]string{"plan"}, c.args...)
				if asJSON {
					args = append(args, "--json")
				}
				code, stdout, stderr := run(t, append(args, "scenarios/testdata/good/checkout.hcl")...)
				if code == ExitUsage || strings.Contains(stdout+stderr, c.secret) {
					t.Errorf("exit %d; the secret shown: %v\n%s%s", code, strings.Contains(stdout+stderr, c.secret), stdout, stderr)
				}
			})
		}
	}
}
