package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// corpus is every scenario in this package: shipped, good and bad.
func corpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, pattern := range []string{"*.hcl", "testdata/good/*.hcl", "testdata/bad/*.hcl"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, src)
		}
	}
	if len(out) == 0 {
		t.Fatal("empty corpus")
	}
	return out
}

// parseBound is the longest Parse may take on any input. Every input is
// bounded by construction (see limits.go) to well under it; this is a
// bound, not a benchmark, so it holds on a loaded machine too.
const parseBound = time.Second

// parseContract asserts what Parse promises for any input: no panic (nor
// stack overflow, which kills the process); an answer within parseBound;
// exactly one of scenario and error; the error an *Error with at least one
// error diagnostic, every subject inside a known file.
func parseContract(t interface{ Fatalf(string, ...any) }, src []byte, vars map[string]string) {
	start := time.Now()
	s, err := Parse("fuzz.hcl", src, vars)
	if took := time.Since(start); took > parseBound {
		t.Fatalf("Parse took %v (more than %v) on %d bytes", took, parseBound, len(src))
	}
	if (s == nil) == (err == nil) {
		t.Fatalf("Parse returned scenario %v and error %v", s, err)
	}
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not *Error", err, err)
	}
	if !e.Diagnostics.HasErrors() {
		t.Fatalf("*Error without an error diagnostic: %v", e.Diagnostics)
	}
	for _, d := range e.Diagnostics {
		if d.Subject == nil {
			continue
		}
		f := e.Files[d.Subject.Filename]
		if f == nil || d.Subject.End.Byte > len(f.Bytes) || d.Subject.Start.Byte > d.Subject.End.Byte {
			t.Fatalf("diagnostic %q has range %v outside its file", d.Summary, d.Subject)
		}
	}
	_ = e.Error()
	if err := e.Render(discard{}, 80, true); err != nil {
		t.Fatalf("Render: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// FuzzParse: make test-fuzz (go test ./scenarios -run '^$' -fuzz
// '^FuzzParse$') explores further; the seed corpus (every scenario in the
// package, the hostile ones of testdata/bad among them, and the hostile
// shapes below) runs with go test.
func FuzzParse(f *testing.F) {
	for _, src := range corpus(f) {
		f.Add(src, "")
	}
	f.Add([]byte(withVars), "pods=[1, {a = 2}]")
	f.Add([]byte(withVars), "on=["+strings.Repeat("[", 80)+"]")
	f.Add([]byte(withSecret), "token=s3cr3t")
	for _, hostile := range []string{
		strings.Repeat("[", 200),
		strings.Repeat("-", 200) + "1",
		strings.Repeat("1+", 200) + "1",
		strings.Repeat(`"${`, 100),
		`"` + strings.Repeat("%{for x in [1,2,3]}", 10) + `"`,
		"[for a in [1,2,3]: [for b in [1,2,3]: [for c in [1,2,3]: c]]]",
	} {
		f.Add([]byte(minimal+"service { capacity = "+hostile+" }\n"), "")
	}
	f.Fuzz(func(t *testing.T, src []byte, v string) {
		var vars map[string]string
		if name, value, err := ParseVar(v); err == nil {
			vars = map[string]string{name: value}
		}
		parseContract(t, src, vars)
	})
}

// TestParseMutations: cutting, duplicating or replacing a slice of a valid
// or invalid scenario never breaks Parse's contract. The mutations keep
// most of the structure, so they reach the decoder and the validator.
func TestParseMutations(t *testing.T) {
	srcs := corpus(t)
	snippets := []string{"", "{", "}", "\"", "=", "var.", "var.baseline", "-1", "0", "null", "[", "]", "\n", "${", "1e400", "true", "\"1s\"", "#"}
	rapid.Check(t, func(t *rapid.T) {
		src := rapid.SampledFrom(srcs).Draw(t, "src")
		i := rapid.IntRange(0, len(src)).Draw(t, "i")
		j := rapid.IntRange(i, min(len(src), i+40)).Draw(t, "j")
		ins := rapid.SampledFrom(snippets).Draw(t, "insert")
		mut := append(append(append([]byte(nil), src[:i]...), ins...), src[j:]...)
		var vars map[string]string
		if rapid.Bool().Draw(t, "vars") {
			vars = map[string]string{
				rapid.SampledFrom([]string{"baseline", "multiplier", "pods", "nope"}).Draw(t, "var"): rapid.SampledFrom([]string{"0", "5", "x", "[1]", "{", "true"}).Draw(t, "value"),
			}
		}
		parseContract(t, mut, vars)
	})
}
