package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
)

// fromScenario is a time-compressed test against System A (C = 200/s, two
// client retries, τ_out = 0.5 s, a fivefold spike for 6 s) at baseline λ.
func fromScenario(url string, baseline float64) string {
	return fmt.Sprintf(`
scenario "from" { max_duration = "3m" }
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
  baseline = %[3]g
  warmup   = "3s"
  spike {
    multiplier = 5
    duration   = "6s"
  }
  observe = "90s"
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
  observe = "30s"
}
gate { allow_trap = false }
`, url+"/work", url, baseline)
}

// simulate --from on recorded runs against the specimen: calibrated from
// a run that recovered, the fluid model recovers within 25 % of the run's
// time; on a run that trapped, the what-if of an admission bound shorter
// than τ_out predicts a recovery. The scenario is the copy the run kept.
func TestSimulateFromARecordedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs; skipped with -short")
	}
	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Stop() })
	record := func(name string, baseline float64, wantCode int) string {
		dir := t.TempDir()
		file := filepath.Join(dir, name+".hcl")
		if err := os.WriteFile(file, []byte(fromScenario(sp.URL, baseline)), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "run")
		code, _, errb := run(t, "run", "--yes", "--out", out, file)
		if code != wantCode {
			t.Fatalf("%s: trigger run exit %d, want %d: %s", name, code, wantCode, errb)
		}
		if _, err := os.Stat(filepath.Join(out, report.ScenarioFile)); err != nil {
			t.Fatalf("the run kept no scenario copy: %v", err)
		}
		return out
	}
	simulate := func(args ...string) analysis.Document {
		code, stdout, errb := run(t, append([]string{"simulate", "--json"}, args...)...)
		if code != ExitPassed && code != ExitGateFailed {
			t.Fatalf("simulate %v: exit %d: %s", args, code, errb)
		}
		var d analysis.Document
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("simulate %v: %v", args, err)
		}
		return d
	}
	recovered := record("recovers", 50, ExitPassed)
	doc, err := report.ReadResult(filepath.Join(recovered, report.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	sim := simulate("--from", recovered)
	measured, simulated := analysis.Value(doc.RecoveryS), analysis.Value(sim.RecoveryS)
	t.Logf("recovered run: %.1f s; calibrated model: %s, %.1f s", measured, sim.Verdict, simulated)
	if sim.Verdict != analysis.VerdictRecovered || math.Abs(simulated-measured) > 0.25*measured {
		t.Errorf("the calibrated model %s in %.1f s; the run recovered in %.1f s (want within 25 %%)", sim.Verdict, simulated, measured)
	}
	code, text, _ := run(t, "simulate", "--from", recovered)
	if code != ExitPassed || !strings.Contains(text, "Calibrated") || !strings.Contains(text, "against the run") {
		t.Errorf("simulate --from's text (exit %d):\n%s", code, text)
	}

	trapped := record("trapped", 80, ExitGateFailed)
	if sim := simulate("--from", trapped); sim.Verdict != analysis.VerdictTrapped {
		t.Errorf("calibrated from the trapped run the model says %s", sim.Verdict)
	}
	whatIf := simulate("--from", trapped, "--set", "service.admission_bound=250ms")
	t.Logf("trapped run with an admission bound of 250 ms: %s, %.1f s", whatIf.Verdict, analysis.Value(whatIf.RecoveryS))
	if whatIf.Verdict != analysis.VerdictRecovered {
		t.Errorf("with an admission bound of 250 ms the model says %s; want recovered", whatIf.Verdict)
	}
}

// simulate --from reads the run's result.json alone: a folder whose
// result.json it refuses is refused without its timeline being read, and
// a run's timeline, however large, is never read at all (issue 32,
// finding 10: a 500 MiB timeline.csv took it to 7.1 GB before it refused
// the folder). Measured as the bytes allocated, far below the timeline's.
func TestSimulateFromNeverReadsTheTimeline(t *testing.T) {
	dir, timeline := reportFolder(t) // a recorded run: result.json and timeline.csv
	f, err := os.OpenFile(filepath.Join(dir, "timeline.csv"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Whole rows, as many fields as the header: a reader reads them all.
	header, _, _ := strings.Cut(string(timeline), "\n")
	line := []byte("99999,observe" + strings.Repeat(",1", strings.Count(header, ",")-1) + "\n")
	const size = 32 << 20
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	for written := 0; written < size; written += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Not a run's result: refused, and the timeline never read.
	plan, err := os.ReadFile("testdata/plan-recovers.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), plan, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, stderr := run(t, "simulate", "--from", dir)
	runtime.ReadMemStats(&after)
	if code != ExitUsage || !strings.Contains(stderr, "not a run's result") {
		t.Errorf("exit %d, stderr %q; want %d, not a run's result", code, stderr, ExitUsage)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("simulate --from allocated %d MiB refusing a folder whose timeline is %d MiB: it read the timeline", alloc>>20, size>>20)
	}
}

// `trigger report` checks result.json first: a folder whose result.json
// is no result document is refused (exit 2) before its timeline is read.
func TestReportRefusesABadResultBeforeTheTimeline(t *testing.T) {
	dir, timeline := reportFolder(t)
	header, _, _ := strings.Cut(string(timeline), "\n")
	line := []byte("99999,observe" + strings.Repeat(",1", strings.Count(header, ",")-1) + "\n")
	const size = 32 << 20
	if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), append([]byte(header+"\n"), bytes.Repeat(line, size/len(line))...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"kind":"run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, stderr := run(t, "report", dir)
	runtime.ReadMemStats(&after)
	if code != ExitUsage || !strings.Contains(stderr, "result.json") {
		t.Errorf("exit %d, stderr %q; want %d naming result.json", code, stderr, ExitUsage)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("report allocated %d MiB refusing a folder whose timeline is %d MiB: it read the timeline", alloc>>20, size>>20)
	}
}
