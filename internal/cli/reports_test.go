package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reportFolder copies a recorded run (runner/report's fixture) into a
// temporary folder and returns the folder and its timeline's bytes.
func reportFolder(t *testing.T) (dir string, timeline []byte) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("..", "..", "runner", "report", "testdata", "recovered")
	for _, f := range []string{"result.json", "timeline.csv"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f == "timeline.csv" {
			timeline = b
		}
	}
	return dir, timeline
}

// runBounded runs `trigger args...` and fails the test if it does not
// return within a generous bound (a FIFO used to block it forever).
func runBounded(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	t.Chdir("../..") // as run does, but outside the goroutine
	go func() {
		var r result
		var out, errb strings.Builder
		r.code = Main(t.Context(), args, &out, &errb)
		r.stdout, r.stderr = out.String(), errb.String()
		done <- r
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(30 * time.Second):
		t.Fatalf("trigger %s did not return", strings.Join(args, " "))
		return 0, "", ""
	}
}

func TestReportCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string, timeline []byte)
		code   int
		stderr string // what the error must say; "" = none
	}{
		// A whole run: every report written, their paths printed.
		{"whole", func(*testing.T, string, []byte) {}, ExitPassed, ""},
		// The last row (96) cut by a crash just before its newline: every
		// field parses, yet it is reported with its row, exit 2, and the
		// reports are drawn from the 95 rows before it.
		{"cut last row", func(t *testing.T, dir string, tl []byte) {
			write(t, filepath.Join(dir, "timeline.csv"), tl[:len(tl)-1])
		}, ExitUsage, "first 95 rows: timeline: line 97 (row 96): cut: the file ends inside it"},
		// Cut mid-number.
		{"cut mid-number", func(t *testing.T, dir string, tl []byte) {
			write(t, filepath.Join(dir, "timeline.csv"), tl[:len(tl)-3])
		}, ExitUsage, "(row 96): cut"},
		// A last row missing fields, newline and all.
		{"short last row", func(t *testing.T, dir string, tl []byte) {
			s := strings.TrimSuffix(string(tl), "\n")
			write(t, filepath.Join(dir, "timeline.csv"), []byte(s[:strings.LastIndexByte(s, ',')]+"\n"))
		}, ExitUsage, "(row 96): cut: 26 fields, the header has 27"},
		// result.json far too large.
		{"huge result", func(t *testing.T, dir string, _ []byte) {
			if err := os.Truncate(filepath.Join(dir, "result.json"), 1<<30); err != nil {
				t.Fatal(err)
			}
		}, ExitUsage, "too large"},
		// Not a run's folder at all.
		{"no result", func(t *testing.T, dir string, _ []byte) { os.Remove(filepath.Join(dir, "result.json")) }, ExitUsage, "is not a run's folder"},
		// result.json a link to /dev/zero: refused instead of read until memory runs out.
		{"dev zero", func(t *testing.T, dir string, _ []byte) {
			p := filepath.Join(dir, "result.json")
			os.Remove(p)
			if _, err := os.Stat("/dev/zero"); err != nil || os.Symlink("/dev/zero", p) != nil {
				t.Skip("no /dev/zero to link to")
			}
		}, ExitUsage, "not a regular file (a character device)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, tl := reportFolder(t)
			tc.damage(t, dir, tl)
			code, stdout, stderr := runBounded(t, "report", dir)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if tc.stderr == "" && (stderr != "" || !strings.Contains(stdout, "report.html")) {
				t.Errorf("stdout %q, stderr %q; want the reports listed", stdout, stderr)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q does not say %q", stderr, tc.stderr)
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// `trigger report` on a folder where two reports cannot be written (a
// full disk, here a folder in their place): exit 4, and stdout names only
// the reports written (issue 32, finding 12).
func TestReportCommandNamesOnlyWrittenFiles(t *testing.T) {
	dir, _ := reportFolder(t)
	for _, name := range []string{"report.html", "junit.xml"} {
		if err := os.MkdirAll(filepath.Join(dir, name, "in-the-way"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runBounded(t, "report", dir)
	if code != ExitHarness {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitHarness, stderr)
	}
	for _, name := range []string{"report.html", "junit.xml"} {
		if strings.Contains(stdout, name) {
			t.Errorf("stdout names %s, which was not written:\n%s", name, stdout)
		}
		if !strings.Contains(stderr, name) {
			t.Errorf("stderr does not name the failed %s:\n%s", name, stderr)
		}
	}
	for _, name := range []string{"timeline.svg", "timeline.png", "report.md"} {
		if !strings.Contains(stdout, filepath.Join(dir, name)) {
			t.Errorf("stdout does not name %s, which was written:\n%s", name, stdout)
		}
	}
}

// A run's "Report:" line names report.html only when it was written, and
// the other files only those written.
func TestWrittenTextNamesOnlyWrittenFiles(t *testing.T) {
	for _, tc := range []struct {
		written     []string
		want, never []string
	}{
		{[]string{"timeline.csv", "result.json", "timeline.svg", "report.html", "report.md"},
			[]string{"Report: out/r/report.html", "timeline.csv, result.json, timeline.svg, report.md in out/r"}, []string{"junit.xml"}},
		{[]string{"timeline.csv", "result.json"},
			[]string{"Written in out/r: timeline.csv, result.json (no report.html)"}, []string{"Report:", "report.md"}},
		{nil, []string{"Nothing was written in out/r"}, []string{"Report:", "result.json"}},
	} {
		got := writtenText("out/r", tc.written)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("written %q: %q does not say %q", tc.written, got, w)
			}
		}
		for _, n := range tc.never {
			if strings.Contains(got, n) {
				t.Errorf("written %q: %q says %q", tc.written, got, n)
			}
		}
	}
}
