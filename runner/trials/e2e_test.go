package trials

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
)

// sureTrap is a time-compressed trigger test far past the boundary: a
// specimen of two pods of 100/s (C = 200/s) at ρ = 0.4 with two client
// retries (A·ρ = 1.2), a threefold spike for 4 s with τ_out = 0.5 s
// ((k·ρ − 1)·Δ = 0.8 s > τ_out): every seed traps, and a run is judged
// trapped within a few seconds of the spike's end.
func sureTrap(url, gate string) string {
	return fmt.Sprintf(`
scenario "trials-e2e" { max_duration = "1m" }
target {
  url         = %[1]q
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "500ms"
  arrivals = "uniform"
  retry {
    max_retries = 2
    on          = ["timeout", "5xx", "503", "connect"]
  }
}
service { capacity = 200 }
load {
  baseline = 80
  warmup   = "2s"
  spike {
    multiplier = 3
    duration   = "4s"
  }
  observe = "30s"
}
prometheus {
  address         = "embedded"
  scrape          = ["%[2]s/metrics"]
  scrape_interval = "500ms"
  ingress         = "sum(rate(specimen_ingress_total[3s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"
  wait            = "max(specimen_queue_wait_estimate_seconds)"
}
recovery { hold = "2s" }
%[3]s
`, url+"/work", url, gate)
}

func loadTest(t *testing.T, src string) *convert.Test {
	t.Helper()
	s, err := scenarios.Parse("trials.hcl", []byte(src), nil)
	if err != nil {
		var se *scenarios.Error
		if errors.As(err, &se) {
			var b strings.Builder
			_ = se.Render(&b, 0, false)
			t.Fatalf("scenario: %s", b.String())
		}
		t.Fatal(err)
	}
	test, err := convert.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return test
}

// --trials 4 far past the boundary: two trapped trials decide P(trap)
// above 50 % by the sequential rule, so the series stops after 2, each
// trial in its folder, trials.json saying it stopped early and why, with
// the model's odds beside the measured ones; the series fails (a trap,
// allow_trap false).
func TestTrialsStopEarlyFarFromTheBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end trials; skipped with -short")
	}
	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Stop() })
	test := loadTest(t, sureTrap(sp.URL, ""))
	dir := t.TempDir()
	var started []int
	begun := time.Now()
	res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Trials: 4, Rest: 500 * time.Millisecond,
		OnTrial: func(i, n int, seed uint64) { started = append(started, i) },
		Run:     runner.Options{Seed: 7, Logf: func(f string, a ...any) { t.Logf("%5.1fs "+f, append([]any{time.Since(begun).Seconds()}, a...)...) }, QueryWarmup: 1500 * time.Millisecond}})
	t.Logf("trials took %s", time.Since(begun).Round(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	if d.TrialsRun != 2 || len(d.Trials) != 2 || len(started) != 2 {
		t.Fatalf("ran %d trials (%v), want 2: %s", d.TrialsRun, started, d.StoppedReason)
	}
	if !d.StoppedEarly || !strings.Contains(d.StoppedReason, "sequential rule") || !strings.Contains(d.StoppedReason, "above 50 %") {
		t.Errorf("stopped early %v: %q", d.StoppedEarly, d.StoppedReason)
	}
	for i, r := range d.Trials {
		if r.Verdict != analysis.VerdictTrapped {
			t.Errorf("trial %d: %s (%s)", r.Index, r.Verdict, r.Note)
		}
		want := fmt.Sprintf("trial-%02d-seed%d", i+1, 7+i)
		if r.Folder != want || r.Seed != uint64(7+i) {
			t.Errorf("trial %d: folder %s seed %d, want %s", i+1, r.Folder, r.Seed, want)
		}
		if _, err := os.Stat(filepath.Join(dir, r.Folder, runner.ResultFile)); err != nil {
			t.Errorf("trial %d: %v", i+1, err)
		}
	}
	if d.Summary == nil || d.Summary.Trapped.Count != 2 || d.Outcome != analysis.TrialsFailed {
		t.Errorf("summary %+v, outcome %s", d.Summary, d.Outcome)
	}
	if d.Model == nil || d.Model.Trapped == nil || d.ModelInsideMeasured == nil {
		t.Errorf("model %+v, inside %v", d.Model, d.ModelInsideMeasured)
	}
	// trials.json on disk is the document returned; trials.md is written.
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	var disk analysis.TrialsDocument
	if err := json.Unmarshal(b, &disk); err != nil {
		t.Fatal(err)
	}
	if disk.TrialsRun != 2 || disk.StoppedReason != d.StoppedReason || disk.Outcome != d.Outcome {
		t.Errorf("trials.json: %d run, %q, %s", disk.TrialsRun, disk.StoppedReason, disk.Outcome)
	}
	if md, err := os.ReadFile(filepath.Join(dir, MarkdownFile)); err != nil || !strings.Contains(string(md), "trapped in 2 of 2 trials") {
		t.Errorf("trials.md (%v):\n%s", err, md)
	}
}

// The abort file present before the first trial stops the series before
// anything is sent: exit 5's kind, and trials.json says why.
func TestTrialsAbortFileBeforeTheFirstTrial(t *testing.T) {
	dir := t.TempDir()
	abort := filepath.Join(t.TempDir(), "stop")
	if err := os.WriteFile(abort, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	test := loadTest(t, sureTrap("http://127.0.0.1:1", ""))
	res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Trials: 3, Run: runner.Options{AbortFile: abort}})
	var re *runner.Error
	if !errors.As(err, &re) || re.Kind != runner.KindStopped {
		t.Fatalf("err = %v, want a stopped error", err)
	}
	if d := res.Document; d.TrialsRun != 0 || d.Outcome != analysis.TrialsStopped || !strings.Contains(d.StoppedReason, "abort file") {
		t.Errorf("document: %d run, %s, %q", d.TrialsRun, d.Outcome, d.StoppedReason)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Error(err)
	}
	if _, err := Run(context.Background(), Options{Test: test, OutDir: dir, Trials: 1}); !errors.As(err, &re) || re.Kind != runner.KindUsage {
		t.Errorf("--trials 1: %v, want a usage error", err)
	}
	// A folder holding a previous series is refused without overwrite.
	if _, err := Run(context.Background(), Options{Test: test, OutDir: dir, Trials: 2, Run: runner.Options{AbortFile: abort}}); !errors.As(err, &re) || re.Kind != runner.KindUsage {
		t.Errorf("a used folder: %v, want a usage error", err)
	}
}

// An interrupt before the first trial (here, while the model's odds are
// computed) ends the series interrupted, trials.json written, nothing
// sent.
func TestTrialsInterruptedBeforeTheFirstTrial(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Options{Test: loadTest(t, sureTrap("http://127.0.0.1:1", "")), OutDir: dir, Trials: 3})
	var re *runner.Error
	if !errors.As(err, &re) || re.Kind != runner.KindInterrupted {
		t.Fatalf("err = %v, want an interrupted error", err)
	}
	if d := res.Document; d.TrialsRun != 0 || d.Outcome != analysis.TrialsInterrupted {
		t.Errorf("document: %d run, %s, %q", d.TrialsRun, d.Outcome, d.StoppedReason)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Error(err)
	}
}

// A service the probe never sees healthy before the first trial ends the
// series failed, with the reason, before any trial's load: no run folder.
func TestTrialsServiceNotHealthyFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer srv.Close()
	src := strings.Replace(sureTrap(srv.URL, "on_trap {\n  action  = \"drop\"\n  observe = \"2s\"\n}\n"), `observe = "30s"`, `observe = "3s"`, 1)
	dir := t.TempDir()
	res, err := Run(context.Background(), Options{Test: loadTest(t, src), OutDir: dir, Trials: 3})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	if d.TrialsRun != 0 || d.Outcome != analysis.TrialsFailed || !strings.Contains(d.StoppedReason, "not healthy before the first trial") ||
		len(d.Gate.Failures) != 1 || d.Gate.Passed {
		t.Errorf("document: %d run, %s, %q, gate %+v", d.TrialsRun, d.Outcome, d.StoppedReason, d.Gate)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "trial-") {
			t.Errorf("a trial ran: %s", e.Name())
		}
	}
}
