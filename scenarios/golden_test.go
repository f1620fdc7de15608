package scenarios

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/bad/*.golden from the current output")

// varsHeader reads "# vars: NAME=VALUE ..." from the first line of a test
// scenario: the --var overrides the golden test passes.
func varsHeader(t *testing.T, src []byte) map[string]string {
	t.Helper()
	first, _, _ := strings.Cut(string(src), "\n")
	rest, ok := strings.CutPrefix(first, "# vars:")
	if !ok {
		return nil
	}
	vars := map[string]string{}
	for _, f := range strings.Fields(rest) {
		n, v, err := ParseVar(f)
		if err != nil {
			t.Fatalf("vars header: %v", err)
		}
		vars[n] = v
	}
	return vars
}

// TestGoldenDiagnostics pins what users see for broken scenarios: every
// testdata/bad/*.hcl must fail, and its rendered diagnostics (width 100, no
// color) must match the .golden file beside it. Regenerate with
// go test ./scenarios -update, then read the diff.
func TestGoldenDiagnostics(t *testing.T) {
	paths, err := filepath.Glob("testdata/bad/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test scenarios: %v", err)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".hcl"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(name, src, varsHeader(t, src))
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %v, %v; want an *Error", s, err)
			}
			checkDiagnostics(t, perr)

			var buf bytes.Buffer
			buf.WriteString(perr.Error() + "\n\n")
			if err := perr.Render(&buf, 100, false); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(path, ".hcl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./scenarios -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("rendered diagnostics differ from %s (rerun with -update and read the diff):\n%s", golden, got)
			}
		})
	}
}

// checkDiagnostics asserts what every *Error must satisfy: at least one
// error; a one-line Error(); every diagnostic with a summary and detail;
// every diagnostic with a subject inside a known file, except an override
// of an undeclared variable, which has no source.
func checkDiagnostics(t *testing.T, e *Error) {
	t.Helper()
	if !e.Diagnostics.HasErrors() {
		t.Errorf("no error among %d diagnostics", len(e.Diagnostics))
	}
	if msg := e.Error(); strings.Contains(msg, "\n") || msg == "" {
		t.Errorf("Error() = %q, want one line", msg)
	}
	for _, d := range e.Diagnostics {
		if d.Summary == "" || d.Detail == "" {
			t.Errorf("diagnostic without summary or detail: %+v", d)
		}
		if d.Subject == nil {
			if d.Summary != "Undeclared variable" {
				t.Errorf("diagnostic %q has no source range", d.Summary)
			}
			continue
		}
		f := e.Files[d.Subject.Filename]
		if f == nil {
			t.Errorf("diagnostic %q: no file %q to render", d.Summary, d.Subject.Filename)
			continue
		}
		if d.Subject.Start.Byte > len(f.Bytes) || d.Subject.End.Byte > len(f.Bytes) || d.Subject.Start.Byte > d.Subject.End.Byte {
			t.Errorf("diagnostic %q: range %v outside the file", d.Summary, d.Subject)
		}
	}
}
