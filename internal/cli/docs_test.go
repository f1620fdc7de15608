package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// docs/safety.md names, for each promise, the tests that check it: every
// name it gives is a test (or fuzz target) that exists.
func TestSafetyDocNamesRealTests(t *testing.T) {
	t.Chdir("../..")
	doc, err := os.ReadFile("docs/safety.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 20 {
		t.Fatalf("docs/safety.md names %d tests; want one or more per promise", len(named))
	}
	var sources strings.Builder
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "out" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !strings.Contains(sources.String(), "func "+m[1]+"(") {
			t.Errorf("docs/safety.md names %s, which no test file defines", m[1])
		}
	}
}

// The GitHub Actions examples call trigger with subcommands and flags that
// exist: every `trigger ...` line of a step's script parses against the
// command tree (a renamed flag would otherwise rot the examples silently).
func TestCIExamplesCallRealCommands(t *testing.T) {
	paths, err := filepath.Glob("../../examples/ci/*.yml")
	if err != nil || len(paths) < 2 {
		t.Fatalf("examples/ci holds %d workflows (%v); want the gate and the comparison", len(paths), err)
	}
	seen := map[string]bool{}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Name string `json:"name"`
					Run  string `json:"run"`
				} `json:"steps"`
			} `json:"jobs"`
		}
		if err := yaml.Unmarshal(src, &wf); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(wf.Jobs) == 0 {
			t.Fatalf("%s: no jobs", path)
		}
		for _, job := range wf.Jobs {
			for _, step := range job.Steps {
				script := strings.ReplaceAll(step.Run, "\\\n", " ")
				for _, line := range strings.Split(script, "\n") {
					line = strings.TrimSpace(line)
					if !strings.HasPrefix(line, "trigger ") {
						continue
					}
					args := commandWords(line)
					cmd, rest, err := newRoot(io.Discard, io.Discard).Find(args[1:])
					if err != nil || cmd.Name() == "trigger" {
						t.Errorf("%s, step %q: %q names no subcommand (%v)", filepath.Base(path), step.Name, line, err)
						continue
					}
					if err := cmd.ParseFlags(rest); err != nil {
						t.Errorf("%s, step %q: %q: %v", filepath.Base(path), step.Name, line, err)
					}
					seen[cmd.Name()] = true
				}
			}
		}
	}
	for _, want := range []string{"plan", "run", "compare"} {
		if !seen[want] {
			t.Errorf("no example calls trigger %s", want)
		}
	}
}

// commandWords splits a shell line into its words up to the first
// redirection, pipe or list operator.
func commandWords(line string) []string {
	var words []string
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, ">") || w == "|" || w == "||" || w == "&&" || w == ";" || w == "2>&1" {
			break
		}
		words = append(words, strings.Trim(w, `"'`))
	}
	return words
}

// The shipped scenarios pass their own plan, or say in a comment which
// exit code plan gives them and why ("`trigger plan` exits N on it: …").
func TestShippedScenariosPassTheirPlan(t *testing.T) {
	t.Chdir("../..")
	files, err := filepath.Glob("examples/*.hcl")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("scenarios/*.hcl")
	said := regexp.MustCompile("`trigger plan` exits ([0-9]+) on it")
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := ExitPassed
		if m := said.FindSubmatch(src); m != nil {
			want, _ = strconv.Atoi(string(m[1]))
		}
		var out, errb bytes.Buffer
		if code := Main(context.Background(), []string{"plan", f}, &out, &errb); code != want {
			t.Errorf("trigger plan %s exits %d, want %d (pass, or say in a comment why not)\n%s%s", f, code, want, out.String(), errb.String())
		}
	}
}
