package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

func parseHCL(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse("brakes.hcl", []byte(src), nil)
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return s
}

// readResult reads the result.json a run wrote.
func readResult(t *testing.T, dir string) analysis.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatalf("result.json: %v", err)
	}
	var doc analysis.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("result.json: %v", err)
	}
	return doc
}

// loadStopBound is how long after a stop the target may still see
// requests in these tests: the promise is one second; the bound leaves room
// for a loaded machine, and stays far below the 5 s query timeout a loop
// waiting on Prometheus would have taken.
const loadStopBound = 2500 * time.Millisecond

// Ctrl-C while Prometheus hangs: the load stops at once, the run ends
// interrupted (not inconclusive) and still writes result.json.
func TestInterruptWinsOverAHangingPrometheus(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	after(tg, 1500*time.Millisecond, func() { fp.SetMode("hang") })
	after(tg, 3500*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	dir := t.TempDir()
	_, err := Run(ctx, Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
	replayIfWritten(t, dir, err)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInterrupted {
		t.Fatalf("err = %v, want an interrupted run", err)
	}
	if late := tg.Last().Sub(cancelled); late > loadStopBound {
		t.Errorf("the target saw load %s after Ctrl-C", late)
	}
	t.Logf("last request %s after Ctrl-C", tg.Last().Sub(cancelled).Round(time.Millisecond))
	doc := readResult(t, dir)
	if !doc.Observation.Interrupted {
		t.Error("result.json does not say interrupted")
	}
}

// max_duration while Prometheus hangs: the load stops at the limit.
func TestMaxDurationWinsOverAHangingPrometheus(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	s.MaxDuration = 6 * time.Second
	after(tg, 1500*time.Millisecond, func() { fp.SetMode("hang") })
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
	replayIfWritten(t, dir, err)
	limit := tg.First().Add(6 * time.Second)
	if late := tg.Last().Sub(limit); late > loadStopBound {
		t.Errorf("the target saw load %s after max_duration", late)
	}
	t.Logf("run error: %v; last request %s after the limit", err, tg.Last().Sub(limit).Round(time.Millisecond))
	doc := readResult(t, dir)
	if doc.Verdict != analysis.VerdictInconclusive {
		t.Errorf("verdict %s, want inconclusive: the metrics were missing", doc.Verdict)
	}
}

// A second interrupt stops the waiting for late metrics: what was measured
// is written at once, the seconds without metrics marked.
func TestSecondInterruptWritesWithoutWaiting(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	src := brakeScenario(tg, fp, "")
	s := parseHCL(t, src)
	s.Prometheus.Timeout = 30 * time.Second // a late second waits this long
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hurry := make(chan struct{})
	var cancelled time.Time
	after(tg, 1500*time.Millisecond, func() { fp.SetMode("hang") })
	after(tg, 3500*time.Millisecond, func() {
		cancelled = time.Now()
		cancel()
		time.Sleep(200 * time.Millisecond)
		close(hurry)
	})
	dir := t.TempDir()
	_, err := Run(ctx, Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf, Hurry: hurry})
	replayIfWritten(t, dir, err)
	if took := time.Since(cancelled); took > 10*time.Second {
		t.Errorf("the run took %s after the second interrupt to end; late metrics wait 30 s", took)
	}
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInterrupted {
		t.Fatalf("err = %v, want interrupted", err)
	}
	doc := readResult(t, dir)
	if !doc.Observation.Interrupted {
		t.Error("result.json does not say interrupted")
	}
	rows := readTimelineFile(t, dir)
	if len(rows) < 3 {
		t.Fatalf("%d rows written, want every second measured", len(rows))
	}
	if last := rows[len(rows)-1]; last.MetricsMissing == 0 {
		t.Errorf("the last second, measured while Prometheus hung, is not marked: metrics_missing = %v", last.MetricsMissing)
	}
}

// wantMetricsMissing checks a run whose Prometheus died: it ends
// inconclusive for missing metrics (err), and its result in dir has no
// verdict and a failed gate.
func wantMetricsMissing(t *testing.T, err error, dir string) {
	t.Helper()
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInconclusive || !errors.Is(err, ErrMetricsMissing) {
		t.Fatalf("err = %v, want inconclusive for missing metrics", err)
	}
	doc := readResult(t, dir)
	if doc.Verdict != analysis.VerdictInconclusive || doc.Gate.Passed {
		t.Errorf("verdict %s, gate passed %v; want inconclusive and failed", doc.Verdict, doc.Gate.Passed)
	}
}

// A stop condition that starts returning a series stops the load within a
// second, and the result says which and when.
func TestStopConditionStopsTheLoad(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	const cond = `ALERTS{alertstate="firing"}`
	fp.SetQuiet(cond, true)
	s := parseHCL(t, brakeScenario(tg, fp, `stop_when "alerts" { query = "ALERTS{alertstate=\"firing\"}" }`))
	var fired time.Time
	after(tg, 2*time.Second, func() { fired = time.Now(); fp.SetQuiet(cond, false) })
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
	replayIfWritten(t, dir, err)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped by a brake", err)
	}
	if late := tg.Last().Sub(fired); late > loadStopBound {
		t.Errorf("the target saw load %s after the condition became true", late)
	}
	t.Logf("last request %s after the condition became true", tg.Last().Sub(fired).Round(time.Millisecond))
	doc := readResult(t, dir)
	if sb := doc.Observation.StoppedBy; sb == nil || sb.By != "stop_when.alerts" || sb.AtS <= 0 {
		t.Errorf("stopped_by = %+v, want stop_when.alerts with its time", sb)
	}
}

// A stop condition that cannot be evaluated (its Prometheus hangs) stops
// the run too.
func TestUncheckableStopConditionStopsTheRun(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	other := startFakeProm(t)
	other.SetQuiet("up == 0", true)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	s.StopWhen = []scenarios.StopCondition{{Name: "down", Query: "up == 0", Address: other.URL, Timeout: time.Second}}
	var hung time.Time
	after(tg, 2*time.Second, func() { hung = time.Now(); other.SetMode("hang") })
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
	replayIfWritten(t, dir, err)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped", err)
	}
	// Its next evaluation times out after 1 s, at most a second after it hung.
	if late := tg.Last().Sub(hung); late > 2*time.Second+loadStopBound {
		t.Errorf("the target saw load %s after the brake's server hung", late)
	}
}

// A stop condition already true in the preflight: nothing is sent.
func TestStopConditionInPreflightSendsNothing(t *testing.T) {
	tg, fp := startTarget(t), startFakeProm(t)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	s.StopWhen = []scenarios.StopCondition{{Name: "always", Query: "vector(1)"}}
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf})
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped", err)
	}
	if !tg.First().IsZero() {
		t.Error("the target saw a request")
	}
}

// A stop condition whose query returns a NaN sample fires: a NaN is a
// sample, and docs/scenarios.md says any sample fires (it used to count as
// no data, and the brake never fired).
func TestStopConditionFiresOnNaN(t *testing.T) {
	tg, fp := startTarget(t), startFakeProm(t)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	s.StopWhen = []scenarios.StopCondition{{Name: "ratio", Query: "errors / requests", Timeout: time.Second}}
	fp.SetValue("errors / requests", "NaN")
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf})
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped || !strings.Contains(err.Error(), "returned NaN") {
		t.Fatalf("err = %v, want stopped by the NaN", err)
	}
	if !tg.First().IsZero() {
		t.Error("the target saw a request")
	}
}

// The abort file stops the run like a stop condition.
func TestAbortFileStopsTheRun(t *testing.T) {
	skipShort(t)
	tg, fp := startTarget(t), startFakeProm(t)
	s := parseHCL(t, brakeScenario(tg, fp, ""))
	abort := filepath.Join(t.TempDir(), "ABORT")
	var made time.Time
	after(tg, 2*time.Second, func() {
		made = time.Now()
		if err := os.WriteFile(abort, nil, 0o644); err != nil {
			t.Error(err)
		}
	})
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf, AbortFile: abort})
	replayIfWritten(t, dir, err)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped", err)
	}
	if late := tg.Last().Sub(made); late > loadStopBound {
		t.Errorf("the target saw load %s after the abort file appeared", late)
	}
	if sb := readResult(t, dir).Observation.StoppedBy; sb == nil || sb.By != "abort_file" {
		t.Errorf("stopped_by = %+v, want abort_file", sb)
	}
}

// A folder that holds a run is refused; --overwrite replaces the run and
// its Prometheus data, as its manifest lists them, and nothing else: a
// prometheus/ folder no run wrote (a user's configuration and data) is
// never removed.
func TestOutDirIsNeverOverwrittenSilently(t *testing.T) {
	dir := t.TempDir()
	if err := prepareAndRelease(dir, false, true); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, promDataDir, "wal")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareAndRelease(dir, false, true); !errors.Is(err, ErrOutExists) {
		t.Fatalf("reused folder: err = %v, want ErrOutExists", err)
	}
	if err := prepareAndRelease(dir, true, false); err != nil {
		t.Fatalf("--overwrite: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old run's TSDB is still there: %v", err)
	}
	// A folder holding what no run writes is not a run to replace.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareAndRelease(dir, true, false); !errors.Is(err, ErrOutExists) {
		t.Errorf("foreign file with --overwrite: err = %v, want ErrOutExists", err)
	}
	// The last run was not embedded: a prometheus/ folder there is not its.
	if err := os.Remove(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	users := filepath.Join(dir, promDataDir, "prometheus.yml")
	if err := os.MkdirAll(filepath.Dir(users), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(users, []byte("global: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareAndRelease(dir, true, true); !errors.Is(err, ErrOutExists) {
		t.Errorf("a prometheus/ folder no run wrote, with --overwrite: err = %v, want ErrOutExists", err)
	}
	if _, err := os.Stat(users); err != nil {
		t.Errorf("the user's prometheus.yml is gone: %v", err)
	}
	// Without any manifest (a folder of an older version, or a user's):
	// files a run writes go, a folder never.
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if err := prepareAndRelease(dir, true, true); !errors.Is(err, ErrOutExists) {
		t.Errorf("no manifest, a prometheus/ folder: err = %v, want ErrOutExists", err)
	}
	if _, err := os.Stat(users); err != nil {
		t.Errorf("the user's prometheus.yml is gone: %v", err)
	}
}

// readTimelineFile reads the timeline.csv a run wrote.
func readTimelineFile(t *testing.T, dir string) []analysis.TimelineRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, report.TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := report.ReadTimeline(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A stop condition on the run's own (embedded) Prometheus, against the
// specimen: the expression becomes true at a known instant (time() passes
// it), and the load at the specimen stops within a second of it.
func TestE2EStopConditionAgainstTheSpecimen(t *testing.T) {
	skipShort(t)
	url, sp := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	s := e2eScenario{url: url, capacity: 200, baseline: 40, k: 2, retries: 1, spike: "20s"}.parse(t)
	trueAt := time.Now().Add(9 * time.Second)
	s.StopWhen = []scenarios.StopCondition{{Name: "clock", Query: fmt.Sprintf("vector(time()) > %d", trueAt.Unix())}}
	trueAt = time.Unix(trueAt.Unix(), 0)
	// The last moment the specimen's ingress grew, sampled every 20 ms.
	var lastGrowth atomic.Int64
	done := make(chan struct{})
	defer close(done)
	go func() {
		var seen uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			st := sp.Stats()
			if n := st.IngressFirst + st.IngressRetry; n != seen {
				seen = n
				lastGrowth.Store(time.Now().UnixNano())
			}
		}
	}()
	res, err := runE2E(t, context.Background(), s)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped", err)
	}
	late := time.Unix(0, lastGrowth.Load()).Sub(trueAt)
	t.Logf("load at the specimen stopped %s after the condition became true", late.Round(time.Millisecond))
	if late > loadStopBound {
		t.Errorf("the specimen saw load %s after the condition became true", late)
	}
	sb := res.Document.Observation.StoppedBy
	if sb == nil || sb.By != "stop_when.clock" {
		t.Fatalf("stopped_by = %+v, want stop_when.clock", sb)
	}
	if fired := res.Start.Add(time.Duration(sb.AtS * float64(time.Second))); fired.Before(trueAt) {
		t.Errorf("recorded as fired at %s, before the condition was true at %s", fired, trueAt)
	}
}

// A metrics answer that is no measurement (1e308, +Inf, a negative rate)
// is left out as missing, never taken as the service's value.
func TestAbsurdMetricValuesAreLeftOut(t *testing.T) {
	m := &metrics{queries: []serviceQuery{{"ingress", "i", sampleSetters["ingress"]}, {"wait", "w", sampleSetters["wait"]}, {"served", "s", sampleSetters["served"]}},
		lastErr: map[string]string{}, missing: map[string]int{}}
	var logged []string
	s, missing := m.record([]float64{1e308, math.Inf(1), -3}, []error{nil, nil, nil}, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	if missing != 3 || !math.IsNaN(s.ingress) || !math.IsNaN(s.wait) || !math.IsNaN(s.served) || len(logged) != 3 {
		t.Errorf("sample %+v, %d missing, logged %q", s, missing, logged)
	}
	if s, missing := m.record([]float64{120, 0.5, 100}, []error{nil, nil, nil}, func(string, ...any) {}); missing != 0 || s.ingress != 120 || s.wait != 0.5 {
		t.Errorf("plain values: %+v, %d missing", s, missing)
	}
}
