package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/staging"
)

// faultSmallScenario is the brakes' small scenario with a fault in its
// spike's place, whose start and stop are the helper's "ok" verb logging
// "start" and "stop" to log.
func faultSmallScenario(t *testing.T, tg *staging.RecordingTarget, fp *staging.FakePrometheus, extra, log string) string {
	src := brakeScenario(tg, fp, extra+`
fault "f" {
  start    = `+helperArgv(t, "ok", "start", log)+`
  stop     = `+helperArgv(t, "ok", "stop", log)+`
  duration = "30s"
  capacity = 0.5
  timeout  = "5s"
}
`)
	spike := "  spike {\n    multiplier = 2\n    duration   = \"2s\"\n  }\n"
	if !strings.Contains(src, spike) {
		t.Fatal("the small scenario's spike changed")
	}
	return strings.Replace(src, spike, "", 1)
}

// waitForStart waits until the helper logged the fault's start.
func waitForStart(t *testing.T, log string) time.Time {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if l := readHelperLog(t, log); len(l) > 0 {
			return l[0].at
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("the fault did not start within 20 s")
	return time.Time{}
}

// wantStoppedOnce checks the helper's log: the start, then the stop once,
// within bound of event when event is set.
func wantStoppedOnce(t *testing.T, log string, event time.Time, bound time.Duration) {
	t.Helper()
	l := readHelperLog(t, log)
	if len(l) != 2 || l[0].rest != "start" || l[1].rest != "stop" {
		t.Fatalf("helper log %+v; want the start and the stop once", l)
	}
	if !event.IsZero() && l[1].at.Sub(event) > bound {
		t.Errorf("the stop ran %s after the event; want within %s", l[1].at.Sub(event), bound)
	}
}

// A stop_when brake that fires while the fault holds stops the load and
// puts the fault back within a second.
func TestFaultIsPutBackWhenABrakeFires(t *testing.T) {
	skipShort(t)
	t.Setenv(faultHelperEnv, "1")
	tg, fp := startTarget(t), startFakeProm(t)
	const cond = `ALERTS{alertstate="firing"}`
	fp.SetQuiet(cond, true)
	log := filepath.Join(t.TempDir(), "helper.log")
	s := parseHCL(t, faultSmallScenario(t, tg, fp, `stop_when "alerts" { query = "ALERTS{alertstate=\"firing\"}" }`, log))
	var fired time.Time
	go func() {
		if waitForStart(t, log).IsZero() {
			return
		}
		time.Sleep(time.Second)
		fired = time.Now()
		fp.SetQuiet(cond, false)
	}()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, StateDir: t.TempDir(), Consent: consentAll})
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped by a brake", err)
	}
	wantStoppedOnce(t, log, fired, time.Second)
}

// Prometheus dies while the fault holds: the run ends inconclusive, and
// the fault is put back, once.
func TestFaultIsPutBackWhenPrometheusIsLost(t *testing.T) {
	skipShort(t)
	t.Setenv(faultHelperEnv, "1")
	tg, fp := startTarget(t), startFakeProm(t)
	log := filepath.Join(t.TempDir(), "helper.log")
	s := parseHCL(t, faultSmallScenario(t, tg, fp, "", log))
	s.Load.Observe = 8 * time.Second
	go func() {
		if !waitForStart(t, log).IsZero() {
			fp.SetMode("dead")
		}
	}()
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf, StateDir: t.TempDir(), Consent: consentAll})
	replayIfWritten(t, dir, err)
	if err == nil {
		t.Fatal("a run whose Prometheus died passed")
	}
	wantStoppedOnce(t, log, time.Time{}, 0)
	if doc := readResult(t, dir); doc.Observation.Fault == nil || !doc.Observation.Fault.Restored {
		t.Errorf("result's fault %+v; want restored", doc.Observation.Fault)
	}
}

// A panic in the run's loop (here from its progress callback) puts the
// fault back before it goes on.
func TestFaultIsPutBackOnAPanic(t *testing.T) {
	skipShort(t)
	t.Setenv(faultHelperEnv, "1")
	tg, fp := startTarget(t), startFakeProm(t)
	log := filepath.Join(t.TempDir(), "helper.log")
	s := parseHCL(t, faultSmallScenario(t, tg, fp, "", log))
	var panicked time.Time
	progress := func(st Status) {
		if st.Phase == analysis.PhaseSpike && len(readHelperLog(t, log)) > 0 {
			panicked = time.Now()
			panic("a bug in the loop")
		}
	}
	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Error("the run did not panic")
			}
		}()
		_, _ = Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, StateDir: t.TempDir(), Progress: progress, Consent: consentAll})
	}()
	wantStoppedOnce(t, log, panicked, time.Second)
}
