package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// campaignScenario is a time-compressed campaign against a specimen of
// System A (two pods of 100/s, C = 200/s) with two client retries
// (A = 3), τ_out = 0.5 s and Δ = 6 s: at ρ = 0.4 the model's smallest
// trapping multiplier is (1 + 0.5/6)/0.4 = 2.71.
func campaignScenario(url, campaignBody string) string {
	return fmt.Sprintf(`
scenario "campaign-e2e" { max_duration = "2m" }
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
  warmup   = "3s"
  spike {
    multiplier = 3
    duration   = "6s"
  }
  observe = "60s"
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
recovery { hold = "3s" }
on_trap {
  action  = "drop"
  observe = "40s"
}
expected_spike {
  multiplier = 1.2
  duration   = "6s"
}
gate { min_trigger_margin = 1.5 }
campaign {
%[3]s
}
`, url+"/work", url, campaignBody)
}

// loadCampaign parses and converts a campaign scenario.
func loadCampaign(t *testing.T, src string) *convert.Test {
	t.Helper()
	s, err := scenarios.Parse("campaign.hcl", []byte(src), nil)
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

// readCampaign reads campaign.json back from dir.
func readCampaign(t *testing.T, dir string) analysis.CampaignDocument {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	var d analysis.CampaignDocument
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func startSpecimen(t *testing.T) string {
	t.Helper()
	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Stop() })
	return sp.URL
}

// A three-cell campaign at ρ = 0.4 against the specimen: ×1.5 and ×2.25
// cannot trigger (k·ρ < 1), ×3 traps; the bracket (2.25, 3] holds the
// model's 2.71 and is within precision 0.3, so the search ends there.
// Every cell's folder holds its run; campaign.json says what was found,
// and the gate passes: the service survives 2.25/1.2 = 1.9× the
// expected spike, above min_trigger_margin 1.5.
func TestCampaignBracketsTheSmallestTrap(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	url := startSpecimen(t)
	test := loadCampaign(t, campaignScenario(url, `
  baselines = [0.4]
  from      = 1.5
  to        = 4
  precision = 0.3
  rest      = "1s"
`))
	dir := t.TempDir()
	started := time.Now()
	res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond}})
	t.Logf("campaign took %s", time.Since(started).Round(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	var sizes []float64
	for _, c := range d.Cells {
		sizes = append(sizes, c.Size)
		t.Logf("cell %d ×%g: %s (%s), recovery %v, A_fail %v", c.Index, c.Size, c.Verdict, c.Note, analysis.Value(c.RecoveryS), analysis.Value(c.AFail))
		if _, err := os.Stat(filepath.Join(dir, c.Folder, runner.ResultFile)); err != nil {
			t.Errorf("cell %d: %v", c.Index, err)
		}
	}
	if fmt.Sprint(sizes) != "[1.5 3 2.25]" {
		t.Fatalf("cells %v; want [1.5 3 2.25]", sizes)
	}
	b := d.Baselines[0]
	if b.SmallestTrap == nil || *b.SmallestTrap != 3 || b.SmallestTrapLo == nil || *b.SmallestTrapLo != 2.25 || b.SearchEnd != string(analysis.BracketNarrow) {
		t.Errorf("baseline %+v; want the bracket (2.25, 3], narrow", b)
	}
	if m := analysis.Value(b.ModelSmallestTrap); math.Abs(m-(1+0.5/6)/0.4) > 1e-9 {
		t.Errorf("model's smallest trap %g", m)
	}
	if d.StoppedReason != ReasonFinished || res.Outcome != Finished || d.Gate == nil || !d.Gate.Passed {
		t.Errorf("stopped %q, outcome %d, gate %+v", d.StoppedReason, res.Outcome, d.Gate)
	}
	if onDisk := readCampaign(t, dir); len(onDisk.Cells) != 3 || onDisk.StoppedReason != ReasonFinished {
		t.Errorf("campaign.json has %d cells, stopped %q", len(onDisk.Cells), onDisk.StoppedReason)
	}
	// One trial a cell, without --tipping, writes no odds (issue 37).
	if raw, err := os.ReadFile(filepath.Join(dir, File)); err != nil || strings.Contains(string(raw), `"odds"`) ||
		strings.Contains(string(raw), `"trap_probability"`) || strings.Contains(string(raw), `"trials"`) {
		t.Errorf("campaign.json of one trial a cell has odds (%v)", err)
	}
}

// A campaign stopped by its max_duration, an interrupt (the context a
// signal ends), or the abort file before any cell, leaves campaign.json
// with every finished cell and the reason.
func TestCampaignStoppedLeavesItsDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	url := startSpecimen(t)
	t.Run("max_duration", func(t *testing.T) {
		test := loadCampaign(t, campaignScenario(url, `
  baselines    = [0.4]
  from         = 3
  to           = 4
  max_duration = "8s"
`))
		dir := t.TempDir()
		res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond}})
		var re *runner.Error
		if !errors.As(err, &re) || re.Kind != runner.KindInterrupted || res == nil || res.Outcome != Interrupted {
			t.Fatalf("err %v, result %+v; want interrupted", err, res)
		}
		d := readCampaign(t, dir)
		if !strings.Contains(d.StoppedReason, "max_duration (8s) reached") || len(d.Cells) != 1 || d.Gate == nil || d.Gate.Passed {
			t.Errorf("stopped %q, %d cells, gate %+v", d.StoppedReason, len(d.Cells), d.Gate)
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		test := loadCampaign(t, campaignScenario(url, `
  baselines = [0.4]
  from      = 3
  to        = 4
`))
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second) // in the first cell
		defer cancel()
		res, err := Run(ctx, Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond}})
		var re *runner.Error
		if !errors.As(err, &re) || re.Kind != runner.KindInterrupted || res == nil || res.Outcome != Interrupted {
			t.Fatalf("err %v, result %+v; want interrupted", err, res)
		}
		d := readCampaign(t, dir)
		if d.StoppedReason != "interrupted" || len(d.Cells) != 1 || d.EndedAt == "" {
			t.Errorf("stopped %q, %d cells, ended %q", d.StoppedReason, len(d.Cells), d.EndedAt)
		}
		if _, err := os.Stat(filepath.Join(dir, d.Cells[0].Folder, runner.ResultFile)); err != nil {
			t.Errorf("the interrupted cell left no result: %v", err)
		}
	})
	t.Run("stop_when", func(t *testing.T) {
		// A brake that fires from the start: the first cell's preflight
		// sends nothing and the campaign stops there.
		test := loadCampaign(t, campaignScenario(url, `
  baselines = [0.4]
  from      = 3
  to        = 4
`)+`
stop_when "always" { query = "vector(1)" }
`)
		dir := t.TempDir()
		res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond}})
		var re *runner.Error
		if !errors.As(err, &re) || re.Kind != runner.KindStopped || res == nil || res.Outcome != Stopped {
			t.Fatalf("err %v, result %+v; want stopped", err, res)
		}
		if d := readCampaign(t, dir); !strings.HasPrefix(d.StoppedReason, "stopped by a brake") || len(d.Cells) != 1 || d.Cells[0].Trapped != nil {
			t.Errorf("stopped %q, cells %+v", d.StoppedReason, d.Cells)
		}
	})
	t.Run("abort file during the probe", func(t *testing.T) {
		test := loadCampaign(t, campaignScenario(url, `
  baselines = [0.4]
  from      = 3
  to        = 4
`))
		dir, abort := t.TempDir(), filepath.Join(t.TempDir(), "abort")
		timer := time.AfterFunc(time.Second, func() { _ = os.WriteFile(abort, nil, 0o644) }) // the probe holds for 3 s
		defer timer.Stop()
		res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, AbortFile: abort}})
		var re *runner.Error
		if !errors.As(err, &re) || re.Kind != runner.KindStopped || res == nil || res.Outcome != Stopped {
			t.Fatalf("err %v, result %+v; want stopped", err, res)
		}
		if d := readCampaign(t, dir); !strings.Contains(d.StoppedReason, "abort file") || len(d.Cells) != 0 {
			t.Errorf("stopped %q, %d cells", d.StoppedReason, len(d.Cells))
		}
	})
	t.Run("abort file", func(t *testing.T) {
		test := loadCampaign(t, campaignScenario(url, `
  baselines = [0.4]
  from      = 3
  to        = 4
`))
		dir, abort := t.TempDir(), filepath.Join(t.TempDir(), "abort")
		if err := os.WriteFile(abort, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf, AbortFile: abort}})
		var re *runner.Error
		if !errors.As(err, &re) || re.Kind != runner.KindStopped || res == nil || res.Outcome != Stopped {
			t.Fatalf("err %v, result %+v; want stopped", err, res)
		}
		if d := readCampaign(t, dir); !strings.Contains(d.StoppedReason, "abort file") || len(d.Cells) != 0 {
			t.Errorf("stopped %q, %d cells", d.StoppedReason, len(d.Cells))
		}
	})
}

// A service that is not back before a cell stops the campaign: the probe
// (no retries, a tenth of C) never sees the recovery rule hold against a
// target that answers every request 503, so no cell runs, campaign.json
// says why, and the outcome is a failed gate (exit 1).
func TestCampaignStopsOnAServiceThatDoesNotComeBack(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	src := strings.Replace(campaignScenario(down.URL, `
  baselines = [0.4]
  from      = 3
  to        = 4
`), `observe = "60s"`, `observe = "3s"`, 1)
	src = strings.Replace(src, `observe = "40s"`, `observe = "3s"`, 1)
	test := loadCampaign(t, src)
	dir := t.TempDir()
	res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: t.Logf}})
	if res == nil || res.Outcome != GateFailed || err == nil {
		t.Fatalf("result %+v, err %v; want a failed campaign", res, err)
	}
	d := readCampaign(t, dir)
	if !strings.Contains(d.StoppedReason, "not healthy before the first cell") || len(d.Cells) != 0 || d.Gate == nil || d.Gate.Passed {
		t.Errorf("stopped %q, %d cells, gate %+v", d.StoppedReason, len(d.Cells), d.Gate)
	}
}

// A campaign with trials = 3 at level 0.5: both cells are far from the
// boundary (×2.25 cannot trigger, ×4 traps), so two agreeing trials
// decide each (twice the deterministic search's one run), each trial in a
// folder of its own with its own seed, each after the probe saw the
// service back. Every cell records P(trap) with its interval and the
// model's P(trap) for its scenario; the baseline records the boundary at
// the level with its interval (the trials are separated, so the penalized
// fit's: four trials leave it wider than (2.25, 4)) and the model's
// boundary at the level, which that interval holds; the margin, judged by
// the gate, is the interval's lower end over expected_spike. With
// --tipping the model's odds are also taken on a grid over the range.
func TestCampaignWithTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	url := startSpecimen(t)
	// Shorter than the others: a 4 s spike (the model's k* = 2.81), a
	// 2 s hold, no rest, 15 s for the way back after a trap.
	src := campaignScenario(url, `
  baselines        = [0.4]
  from             = 2.25
  to               = 4
  precision        = 0.5
  rest             = "0s"
  trials           = 3
  trap_probability = 0.5
`)
	src = strings.Replace(src, `duration   = "6s"`, `duration   = "4s"`, 1)
	src = strings.Replace(src, `recovery { hold = "3s" }`, `recovery { hold = "2s" }`, 1)
	src = strings.Replace(src, `observe = "40s"`, `observe = "15s"`, 1)
	test := loadCampaign(t, src)
	dir := t.TempDir()
	started := time.Now()
	var probes atomic.Int32
	logf := func(format string, args ...any) {
		if strings.HasPrefix(fmt.Sprintf(format, args...), "campaign: probing") {
			probes.Add(1)
		}
		t.Logf(format, args...)
	}
	res, err := Run(context.Background(), Options{Test: test, OutDir: dir, Run: runner.Options{Logf: logf, QueryWarmup: 1500 * time.Millisecond}, Tipping: true})
	t.Logf("campaign took %s", time.Since(started).Round(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d := readCampaign(t, dir)
	if res.Outcome != Finished || d.Trials != 3 || d.TrapProbability != 0.5 {
		t.Errorf("outcome %d, trials %d, level %g", res.Outcome, d.Trials, d.TrapProbability)
	}
	var sizes []float64
	for _, c := range d.Cells {
		sizes = append(sizes, c.Size)
		t.Logf("cell %d ×%g: %s, P(trap) %+v, model %+v", c.Index, c.Size, c.Side, c.TrapProbability, c.ModelTrapProbability)
		if len(c.Trials) != 2 {
			t.Errorf("cell %d took %d trials; want 2", c.Index, len(c.Trials))
		}
		for j, tr := range c.Trials {
			if tr.Seed != uint64(1+j) {
				t.Errorf("cell %d trial %d seed %d", c.Index, tr.Trial, tr.Seed)
			}
			if _, err := os.Stat(filepath.Join(dir, tr.Folder, runner.ResultFile)); err != nil {
				t.Errorf("cell %d trial %d: %v", c.Index, tr.Trial, err)
			}
		}
		p, m := c.TrapProbability, c.ModelTrapProbability
		if p == nil || p.Of != 2 || !(p.Lo <= p.P && p.P <= p.Hi) || m == nil || m.Of < 1 {
			t.Errorf("cell %d: P(trap) %+v, model %+v", c.Index, p, m)
		}
		// The model's figure is the one its trials' documents carry.
		for _, tr := range c.Trials {
			doc, _, err := report.ReadRunResult(filepath.Join(dir, tr.Folder))
			if err != nil {
				t.Fatal(err)
			}
			if doc.TrapProbability == nil || doc.TrapProbability.Trapped == nil || m == nil || *doc.TrapProbability.Trapped != *m {
				t.Errorf("cell %d trial %d: its document's odds %+v, the campaign's %+v", c.Index, tr.Trial, doc.TrapProbability, m)
			}
		}
		if want := c.Size > 2.5; c.Trapped == nil || *c.Trapped != want || (c.Side == "above") != want {
			t.Errorf("cell %d ×%g: side %q, trapped %v", c.Index, c.Size, c.Side, c.Trapped)
		}
	}
	// The probe ran before every trial.
	if n := probes.Load(); n != 4 {
		t.Errorf("%d probes for 4 trials", n)
	}
	if fmt.Sprint(sizes) != "[2.25 4]" {
		t.Fatalf("cells %v; want [2.25 4]", sizes)
	}
	b := d.Baselines[0]
	o := b.Odds
	if o == nil || o.Boundary == nil || o.BoundaryLo == nil || o.BoundaryHi == nil || o.Source != analysis.BoundaryFromPenalizedFit || o.Fit == nil ||
		!(*o.BoundaryLo < 2.25 && 2.25 < *o.Boundary && *o.Boundary < 4 && 4 < *o.BoundaryHi) || o.Trials != 4 || o.Cells != 2 {
		t.Fatalf("odds %+v", o)
	}
	// --tipping: the model's odds on a grid of 9 sizes over [2.25, 4]
	// besides the bisection's.
	if !d.Tipping || len(o.ModelCurve) < modelGrid+2 || o.ModelCurve[0].Size != 2.25 || o.ModelCurve[len(o.ModelCurve)-1].Size != 4 {
		t.Errorf("tipping %v, the model's curve %+v", d.Tipping, o.ModelCurve)
	}
	if o.ModelBoundary == nil || len(o.ModelCurve) < 2 || *o.ModelBoundary < *o.BoundaryLo || *o.ModelBoundary > *o.BoundaryHi {
		t.Errorf("the model's boundary %v (%s), curve %+v", analysis.Value(o.ModelBoundary), o.ModelNote, o.ModelCurve)
	}
	t.Logf("boundary %g in (%g, %g) by %s; model %g (%.1f s)", *o.Boundary, *o.BoundaryLo, *o.BoundaryHi, o.Source, analysis.Value(o.ModelBoundary), o.ModelSeconds)
	if m := analysis.Value(b.TriggerMargin); math.Abs(m-*o.BoundaryLo/1.2) > 1e-9 || d.Gate == nil || d.Gate.Passed != (m >= 1.5) {
		t.Errorf("margin %g, gate %+v", m, d.Gate)
	}
}
