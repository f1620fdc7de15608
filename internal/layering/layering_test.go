// Package layering checks the rules of docs/design.md, "The house" and
// "Who may import whom", on the module's import graph, so a change that
// breaks one fails `make test` instead of waiting for a reader to notice.
package layering

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/trigger-test/trigger/"

// golist runs `go list` with args and returns its output's words.
func golist(t *testing.T, args ...string) []string {
	t.Helper()
	return strings.Fields(strings.Join(golistLines(t, args...), "\n"))
}

// golistLines runs `go list` with args and returns its output's lines.
func golistLines(t *testing.T, args ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to read the import graph: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// ours keeps the module's own packages, without the module prefix.
func ours(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

// Everything a package links, tests left out.
func TestWhatEachPackageLinks(t *testing.T) {
	for _, tc := range []struct {
		pkg   string
		never []string
	}{
		// The Prometheus client backs off as a client does, with retry,
		// and never links the driver.
		{"./runner/prom", []string{"loadgen", "scenarios", "convert", "analysis"}},
		// The shipped binary starts no test harness.
		{"./cmd/trigger", []string{"internal/staging", "internal/fieldtest", "internal/testwait"}},
		// The model is pure.
		{"./analysis/...", []string{"loadgen", "retry", "scenarios", "convert", "runner", "runner/prom", "fleet"}},
		// The driver knows nothing of HCL, PromQL or verdicts.
		{"./loadgen", []string{"scenarios", "analysis", "convert", "runner/prom", "internal/queryshape"}},
		{"./retry", []string{"loadgen", "scenarios", "analysis"}},
		{"./scenarios", []string{"loadgen", "analysis", "convert", "runner", "runner/prom"}},
		// The importers read recordings and write HCL, nothing else.
		{"./importer", []string{"scenarios", "loadgen", "analysis", "convert", "runner", "vocab"}},
	} {
		deps := ours(golist(t, "-deps", tc.pkg))
		for _, n := range tc.never {
			if slices.Contains(deps, n) {
				t.Errorf("%s links %s", tc.pkg, n)
			}
		}
	}
}

// The runner reads the scenario only through convert.Test: outside its
// tests it does not import scenarios.
func TestRunnerImportsNoScenarios(t *testing.T) {
	out := golist(t, "-json=ImportPath,Imports", "./runner")
	var p struct{ Imports []string }
	if err := json.Unmarshal([]byte(strings.Join(out, " ")), &p); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Imports, module+"scenarios") {
		t.Errorf("runner imports scenarios: it must read the scenario through convert.Test")
	}
}
