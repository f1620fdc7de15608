package runner

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
)

// These end-to-end tests drive a specimen on loopback through the whole
// path: scenario, driver, embedded Prometheus, observation, verdict, gate.
// They are time-compressed (τ_out = 0.5 s, spikes of seconds) and bounded
// by each scenario's max_duration.

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
}

// System A at ρ = 0.4 with two retries (A·ρ = 1.2) is judged trapped
// within 10 τ_out of the spike's end (τ_out = 1 s here), and the run stops
// then.
func TestE2ETrappedStopsEarly(t *testing.T) {
	skipShort(t)
	res := runSystemA(t, e2eScenario{capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "10s"})
	d := res.Document
	if d.Verdict != analysis.VerdictTrapped || d.Gate.Passed {
		t.Fatalf("verdict %s, gate passed %v; want trapped and a failed gate", d.Verdict, d.Gate.Passed)
	}
	if j := analysis.Value(d.Observation.JudgedS); !(j <= 10*1) {
		t.Errorf("judged trapped %.1f s after the spike's end; want within 10 τ_out", j)
	}
	spikeEnd := *d.Observation.SpikeEndS
	if limit := spikeEnd + 10*1; d.Observation.EndS > limit {
		t.Errorf("judged at %.1f s, %.1f s after the spike's end; want within 10 τ_out", d.Observation.EndS, d.Observation.EndS-spikeEnd)
	}
	if a := analysis.Value(d.Amplification.Measured); math.Abs(a-3) > 0.45 {
		t.Errorf("A_fail = %.2f, want 3 ± 15 %%", a)
	}
	// The model's odds beside this one draw: the request model traps it too.
	if tp := d.TrapProbability; tp == nil || tp.Trapped == nil || tp.FirstSeed != 1 || !(tp.Trapped.Lo > 0.5) {
		t.Errorf("trap_probability %+v; want the request model's odds, most runs trapped", tp)
	}
}

// System A at ρ = 0.25 (A·ρ = 0.75) recovers, within 25 % of the
// recovery time (docs/model.md, "The trap") computed from the measured A
// and ρ.
func TestE2ERecovers(t *testing.T) {
	skipShort(t)
	res := runSystemA(t, e2eScenario{capacity: 200, baseline: 50, k: 5, retries: 2})
	d := res.Document
	if d.Verdict != analysis.VerdictRecovered || d.RecoveryS == nil || !d.Gate.Passed {
		t.Fatalf("verdict %s recovery %v gate %v", d.Verdict, d.RecoveryS, d.Gate.Failures)
	}
	pred := analysis.Value(d.Observation.PredictedRecoveryS)
	if got := *d.RecoveryS; math.Abs(got/pred-1) > 0.25 {
		t.Errorf("recovered in %.1f s; the formula at measured A and ρ gives %.1f s (%+.0f %%)", got, pred, 100*(got/pred-1))
	}
	if abandoned := analysis.Value(d.Observation.Abandoned); !(abandoned > 0) {
		t.Errorf("System A serves abandoned work, measured %v", abandoned)
	}
	checkLatencyByPhase(t, d)
}

// checkLatencyByPhase fails t unless d has the first attempts' latency in
// the warmup, the spike and after it, each from attempts, ordered p50 ≤
// p95 ≤ p99 (the successes' too), and the spike's p99 at least the
// warmup's p50: the overload queued them.
func checkLatencyByPhase(t *testing.T, d analysis.Document) {
	t.Helper()
	ls := d.Observation.LatencyByPhase
	if len(ls) != 3 || ls[0].Phase != analysis.PhaseWarmup || ls[1].Phase != analysis.PhaseSpike || ls[2].Phase != analysis.PhaseObserve {
		t.Fatalf("latency by phase %+v; want warmup, spike, observe", ls)
	}
	for _, l := range ls {
		for _, p := range []analysis.LatencyPercentiles{l.LatencyPercentiles, l.Succeeded} {
			if p.Attempts == 0 || p.P50S == nil || p.P95S == nil || p.P99S == nil || !(0 < *p.P50S && *p.P50S <= *p.P95S && *p.P95S <= *p.P99S) {
				t.Errorf("%s: %d attempts, p50 %v p95 %v p99 %v; want some, 0 < p50 ≤ p95 ≤ p99", l.Phase, p.Attempts,
					analysis.Value(p.P50S), analysis.Value(p.P95S), analysis.Value(p.P99S))
			}
		}
		if l.Succeeded.Attempts > l.Attempts {
			t.Errorf("%s: %d succeeded of %d", l.Phase, l.Succeeded.Attempts, l.Attempts)
		}
	}
	if w, s := analysis.Value(ls[0].P50S), analysis.Value(ls[1].P99S); !(s >= w) {
		t.Errorf("the spike's p99 %v s is below the warmup's p50 %v s", s, w)
	}
}

// Behind a gateway that retries twice, clients that retry twice: the
// service sees A_fail = 9 ± 15 %, and the report names the hidden factor 3.
func TestE2EHiddenGatewayAmplification(t *testing.T) {
	skipShort(t)
	url, _ := startSpecimen(t, specimen.Config{Pods: 1, PodRate: 100,
		Gateway: specimen.GatewayConfig{Enabled: true, Retries: 2, TryTimeout: 150 * time.Millisecond}})
	s := e2eScenario{url: url, capacity: 100, baseline: 15, k: 10, retries: 2, spike: "10s"}.parse(t)
	res, err := runE2E(t, context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	a, hidden := analysis.Value(d.Amplification.Measured), analysis.Value(d.Amplification.Hidden)
	if math.Abs(a-9) > 9*0.15 {
		t.Errorf("A_fail = %.2f, want 9 ± 15 %%", a)
	}
	if math.Abs(hidden-3) > 3*0.15 {
		t.Errorf("hidden factor = %.2f, want about 3", hidden)
	}
	if d.Verdict != analysis.VerdictTrapped {
		t.Errorf("A·ρ = 9 × 0.15 = 1.35: want trapped, got %s", d.Verdict)
	}
}

// An admission bound below the timeout: the excess is refused at the
// door, no debt is served, and the service recovers.
func TestE2EAdmissionBoundRecovers(t *testing.T) {
	skipShort(t)
	url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100, AdmissionBound: 250 * time.Millisecond})
	s := e2eScenario{url: url, capacity: 200, baseline: 80, k: 5, retries: 2}.parse(t)
	res, err := runE2E(t, context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	if d.Verdict != analysis.VerdictRecovered {
		t.Fatalf("verdict %s, want recovered", d.Verdict)
	}
	if ab := analysis.Value(d.Observation.Abandoned); ab != 0 {
		t.Errorf("abandoned work served: %v, want none", ab)
	}
	if rej := analysis.Value(d.Observation.Refused); !(rej > 0) {
		t.Errorf("refused %v, want the excess refused at the door", rej)
	}
}

// System A judged trapped, then on_trap drops demand to zero: the wait the
// verdict was judged on drains, and the run times the way back.
func TestE2EOnTrapDropTimesTheDrain(t *testing.T) {
	skipShort(t)
	res := runSystemA(t, e2eScenario{capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "6s",
		extra: `on_trap {
  action  = "drop"
  observe = "60s"
}`})
	d := res.Document
	ot := d.Observation.OnTrap
	if d.Verdict != analysis.VerdictTrapped || ot == nil || ot.RecoveryS == nil {
		t.Fatalf("verdict %s, on_trap %+v; want trapped, and the drain timed after the drop", d.Verdict, ot)
	}
	t.Logf("judged %.1f s after the spike; back %.1f s after the drop", analysis.Value(d.Observation.JudgedS), *ot.RecoveryS)
}

// Bad inputs are refused with the right kind of error before any load is
// sent: the specimen sees no request.
func TestE2EBadInputsSendNothing(t *testing.T) {
	url, srv := startSpecimen(t, specimen.Config{Pods: 1, PodRate: 100})
	base := e2eScenario{url: url, capacity: 100, baseline: 10, k: 5, retries: 1}
	for _, tc := range []struct {
		name string
		edit func(*e2eScenario)
		kind Kind
		want error
	}{
		{"prometheus unreachable", func(e *e2eScenario) { e.prometheusAddress = "http://127.0.0.1:1" }, KindHarness, nil},
		{"query with no series", func(e *e2eScenario) { e.ingressQuery = "sum(rate(no_such_metric_total[3s]))" }, KindInconclusive, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			tc.edit(&e)
			_, err := Run(context.Background(), Options{Test: testOf(t, e.parse(t)), OutDir: t.TempDir(), QueryWarmup: 1500 * time.Millisecond})
			var re *Error
			if !errors.As(err, &re) || re.Kind != tc.kind {
				t.Fatalf("err %v, want kind %d", err, tc.kind)
			}
			t.Logf("message: %v", err)
		})
	}
	// The host check happens before Prometheus is even contacted.
	s := base.parse(t)
	s.Target.AllowHosts = []string{"localhost"}
	if _, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir()}); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("not allowlisted: %v", err)
	}
	if n := srv.Stats().Ingress(); n != 0 {
		t.Errorf("the specimen saw %d attempts; bad inputs must send nothing", n)
	}
}

// Cancelling mid-spike (what SIGINT does) stops the load within a second
// and leaves a valid partial result.
func TestE2EInterruptMidSpike(t *testing.T) {
	skipShort(t)
	url, srv := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	s := e2eScenario{url: url, capacity: 200, baseline: 50, k: 5, retries: 2, spike: "20s"}.parse(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := t.TempDir()
	var cancelledAt time.Time
	var seenSpike bool
	res, err := Run(ctx, Options{Test: testOf(t, s), OutDir: out, Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond, Progress: func(st Status) {
		if st.Phase == "spike" && !seenSpike && st.Elapsed > 5*time.Second {
			seenSpike, cancelledAt = true, time.Now()
			cancel()
		}
	}})
	replayIfWritten(t, out, err)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInterrupted {
		t.Fatalf("err %v, want interrupted", err)
	}
	if res == nil || !res.Document.Observation.Interrupted {
		t.Fatal("no partial result")
	}
	before := srv.Stats().Ingress()
	time.Sleep(time.Second)
	if after := srv.Stats().Ingress(); after != before {
		t.Errorf("the specimen still received %d attempts a second after Run returned", after-before)
	}
	if took := time.Since(cancelledAt) - time.Second; took > 3*time.Second {
		t.Errorf("Run took %s to return after the cancel", took)
	}
	doc, err := report.ReadResult(filepath.Join(out, ResultFile))
	if err != nil || !doc.Observation.Interrupted {
		t.Errorf("result.json: %v, %+v", err, doc.Observation)
	}
	if fi, err := os.Stat(filepath.Join(out, report.TimelineFile)); err != nil || fi.Size() == 0 {
		t.Errorf("timeline.csv: %v", err)
	}
}
