package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// copyFixture puts testdata/<name>'s result.json and timeline.csv (only
// those: what a crashed run leaves) in a temporary folder.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{ResultFile, TimelineFile} {
		b, err := os.ReadFile(filepath.Join("testdata", name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkReports checks that every report is in dir, non-empty, with
// nothing left behind by the atomic writes.
func checkReports(t *testing.T, dir string) {
	t.Helper()
	for _, f := range ReportFiles {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// RenderDir on the folder of a real run writes all five reports, and
// they say the same as the writers called one by one.
func TestRenderDir(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := copyFixture(t, name)
			if _, err := RenderDir(dir); err != nil {
				t.Fatal(err)
			}
			checkReports(t, dir)
			if len(ReportFiles) != 5 {
				t.Errorf("ReportFiles = %v", ReportFiles)
			}
			doc, rows := loadFixture(t, name)
			var md, junit, svg bytes.Buffer
			if err := WriteMarkdown(&md, doc); err != nil {
				t.Fatal(err)
			}
			if err := WriteJUnit(&junit, doc); err != nil {
				t.Fatal(err)
			}
			ch, err := TimelineChart(doc, rows)
			if err != nil {
				t.Fatal(err)
			}
			if err := ch.WriteSVG(&svg); err != nil {
				t.Fatal(err)
			}
			for f, want := range map[string][]byte{MarkdownFile: md.Bytes(), JUnitFile: junit.Bytes(), SVGFile: svg.Bytes()} {
				got, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s differs from its writer's output (%v)", f, err)
				}
			}
			page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(page, []byte("<code>"+dir+"</code>")) {
				t.Error("report.html does not name the run's folder")
			}
		})
	}
}

// writeDoc writes a result document into a new folder.
func writeDoc(t *testing.T, doc analysis.Document) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteResult(filepath.Join(dir, ResultFile), doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

// RenderDir renders whatever a folder holds, without failing.
func TestRenderDirPartialFolders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) string
	}{
		// A simulate document, no timeline.csv: the model's own timeline is charted.
		{"simulate", func(t *testing.T) string { return writeDoc(t, simulateDoc(t)) }},
		// A plan: no observation, no timeline.
		{"plan", func(t *testing.T) string {
			return writeDoc(t, analysis.Plan(analysis.PlanInputs{
				Scenario: analysis.ScenarioSection{Name: "p", DemandPerS: 80, CapacityPerS: 200, Multiplier: 5, SpikeS: 10, WarmupS: 20, ObserveS: 60, TimeoutS: 1},
				Layers:   []analysis.RetryLayer{{Name: "client", MaxRetries: 2}},
			}))
		}},
		// A run interrupted during its spike: a short timeline, no verdict.
		{"interrupted", func(t *testing.T) string {
			doc, rows := loadFixture(t, "recovered")
			doc.Observation.Interrupted, doc.Verdict, doc.RecoveryS = true, analysis.VerdictNoTrigger, nil
			doc.Observation.VerdictReason, doc.Observation.EndS = "interrupted before a verdict", 25
			doc.Gate = analysis.EvaluateGate(analysis.GateSpec{}, analysis.VerdictNoTrigger, math.NaN(), math.NaN(), math.NaN())
			dir := writeDoc(t, doc)
			f, err := os.Create(filepath.Join(dir, TimelineFile))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w, err := NewTimelineWriter(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range rows[:25] {
				if err := w.Write(m); err != nil {
					t.Fatal(err)
				}
			}
			return dir
		}},
		// A run whose timeline.csv is missing: the chart from the document alone.
		{"no timeline", func(t *testing.T) string {
			dir := copyFixture(t, "trapped")
			os.Remove(filepath.Join(dir, TimelineFile))
			return dir
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.setup(t)
			if _, err := RenderDir(dir); err != nil {
				t.Fatal(err)
			}
			checkReports(t, dir)
		})
	}
}

// A timeline cut by a crash mid-row: the reports are drawn from the
// whole rows and the cut is reported.
func TestRenderDirTruncatedTimeline(t *testing.T) {
	dir := copyFixture(t, "recovered")
	path := filepath.Join(dir, TimelineFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.Count(string(b), "\n") - 1 // rows under the header
	if err := os.WriteFile(path, append(b, []byte("999,observe,4x")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = RenderDir(dir)
	if want := fmt.Sprintf("first %d rows", whole); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want the cut reported", err)
	}
	checkReports(t, dir)
}

// What RenderDir cannot work without is an error.
func TestRenderDirErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		// Nothing in the folder.
		{"empty folder", func(string) {}, "result.json"},
		// A result.json that is not JSON.
		{"bad json", func(dir string) { os.WriteFile(filepath.Join(dir, ResultFile), []byte("{"), 0o644) }, "result"},
		// JSON that is no result document: null, {}, a kind without a verdict.
		{"null", func(dir string) { os.WriteFile(filepath.Join(dir, ResultFile), []byte("null"), 0o644) }, "not a result document"},
		{"empty object", func(dir string) { os.WriteFile(filepath.Join(dir, ResultFile), []byte("{}"), 0o644) }, "not a result document"},
		{"no verdict", func(dir string) { os.WriteFile(filepath.Join(dir, ResultFile), []byte(`{"kind":"run"}`), 0o644) }, "no verdict"},
		// A timeline.csv with no readable row at all.
		{"bad timeline", func(dir string) {
			b, _ := json.Marshal(analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped})
			os.WriteFile(filepath.Join(dir, ResultFile), b, 0o644)
			os.WriteFile(filepath.Join(dir, TimelineFile), []byte("t_s\nx\n"), 0o644)
		}, "timeline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(dir)
			_, err := RenderDir(dir)
			if err == nil || !strings.HasPrefix(err.Error(), "report: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a report: error naming %s", err, tc.want)
			}
		})
	}
}

// A simulate document's timeline reads back from result.json as the rows
// the model wrote: what the model knows, the rest unknown, so `trigger
// report` charts it as simulate did.
func TestSimulateTimelineReadsBack(t *testing.T) {
	doc := simulateDoc(t)
	dir := writeDoc(t, doc)
	back, err := ReadResult(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Timeline) != len(doc.Timeline) {
		t.Fatalf("%d rows read back of %d", len(back.Timeline), len(doc.Timeline))
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i, m := range back.Timeline {
		w := doc.Timeline[i]
		if m.TS != w.TS || m.Phase != w.Phase || !same(m.Sent, w.Sent) || !same(m.FirstTimeouts, w.FirstTimeouts) ||
			!same(m.WaitS, w.WaitS) || !same(m.MaxWaitS, w.MaxWaitS) || len(m.AttemptsPerS) != len(w.AttemptsPerS) {
			t.Fatalf("row %d: read back %+v, wrote %+v", i, m, w)
		}
		if !math.IsNaN(m.Pods) || !math.IsNaN(m.TracerWaitS) || !math.IsNaN(m.FirstConnect) {
			t.Fatalf("row %d: a model has no pods, tracers or connections: %+v", i, m)
		}
	}
}

// BenchmarkWriteAll renders every report of the recovered run (80 rows):
// the cost `trigger run` adds at its end.
func BenchmarkWriteAll(b *testing.B) {
	dir := b.TempDir()
	doc, err := ReadResult(filepath.Join("testdata", "recovered", ResultFile))
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "recovered", TimelineFile))
	if err != nil {
		b.Fatal(err)
	}
	rows, err := ReadTimeline(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := WriteAll(dir, doc, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// Once a Gate is closed nothing more is written through it: the run that
// stopped waiting for its reports finds no file appearing after it ends.
func TestGateRefusesWritesAfterClose(t *testing.T) {
	dir := t.TempDir()
	g := &Gate{}
	if err := WriteFileGated(g, dir, "a.txt", func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }); err != nil {
		t.Fatal(err)
	}
	g.Close()
	err := WriteFileGated(g, dir, "b.txt", func(w io.Writer) error { _, err := io.WriteString(w, "b"); return err })
	if !errors.Is(err, ErrGateClosed) {
		t.Errorf("a write after Close: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "a.txt" {
		t.Errorf("the folder holds %v; want a.txt alone", entries)
	}
}

// failWrites makes the named reports unwritable in dir, as a full disk
// would, and as root too: a non-empty folder in each one's place, which
// the rename of the written file cannot replace.
func failWrites(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		os.Remove(filepath.Join(dir, name))
		if err := os.MkdirAll(filepath.Join(dir, name, "in-the-way"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// RenderDir names only the reports it wrote: one whose write failed is
// not among them, and the error says so (issue 32, finding 12).
func TestRenderDirNamesOnlyWrittenReports(t *testing.T) {
	dir := copyFixture(t, "recovered")
	failWrites(t, dir, HTMLFile, JUnitFile)
	written, err := RenderDir(dir)
	if err == nil || !strings.Contains(err.Error(), HTMLFile) || !strings.Contains(err.Error(), JUnitFile) {
		t.Errorf("err = %v, want the failed writes of %s and %s", err, HTMLFile, JUnitFile)
	}
	want := []string{SVGFile, PNGFile, MarkdownFile}
	if fmt.Sprint(written) != fmt.Sprint(want) {
		t.Errorf("written %q, want %q", written, want)
	}
}
