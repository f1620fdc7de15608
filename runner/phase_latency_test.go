package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/vocab"
)

// splitLoad is a load that logs the phases the run splits its latency at;
// its clock stands at now.
type splitLoad struct {
	load   // nil: only what the phases call is here
	now    time.Duration
	splits []string
	parts  []loadgen.PartLatency
}

func (l *splitLoad) Elapsed() time.Duration               { return l.now }
func (l *splitLoad) Replan([]loadgen.Stage) time.Duration { return l.now }
func (l *splitLoad) PartLatencies() []loadgen.PartLatency { return l.parts }
func (l *splitLoad) SplitAt(at time.Duration, part string) {
	l.splits = append(l.splits, fmt.Sprintf("%s@%g", part, at.Seconds()))
}

// The run splits the driver's latency where the referee's phases start: the
// spike at its replan and its end Δ later; a fault that starts moves the
// end to the fault's start + its duration; on_trap at the action.
func TestPhasesSplitTheDriversLatency(t *testing.T) {
	r := unitRun(time.Second)
	l := &splitLoad{now: 10 * time.Second}
	r.drv = l
	r.spec.SpikeDuration = 5 * time.Second
	r.inputs.Scenario.Multiplier = 2
	r.ref = referee.New(r.plan, analysis.RefereeConfig{SuccessRatio: 0.99, HoldS: 10, SpikeS: 5, FaultS: 6})
	r.startSpike()
	r.spec.Fault = &convert.Fault{Name: "f", Duration: 6 * time.Second}
	r.fault, r.faultStarted = &faultRun{}, make(chan faultStartResult, 1)
	r.faultStarted <- faultStartResult{at: 12}
	l.now = 12 * time.Second
	if r.faultStep(12) {
		t.Fatal("the fault step ended the run")
	}
	r.spec.OnTrap = &convert.OnTrap{Action: vocab.TrapDrop, Observe: time.Minute}
	l.now = 30 * time.Second
	r.startOnTrap(29)
	want := "spike@10 observe@15 spike@12 observe@18 on_trap@30"
	if got := strings.Join(l.splits, " "); got != want {
		t.Errorf("splits %q, want %q", got, want)
	}
	// A load without the histograms (a fleet) is left alone.
	r.drv = nil
	r.splitPhase(40, analysis.PhaseObserve)
	if r.latencyByPhase() != nil {
		t.Error("latency by phase without a driver that measures it")
	}
}

// The result lists warmup, spike and observe whether or not they had
// attempts (null percentiles when not), on_trap only when it ran.
func TestPhaseLatenciesForTheResult(t *testing.T) {
	p := func(n int64, p50, p95, p99 float64) loadgen.Percentiles {
		return loadgen.Percentiles{Count: n, P50: p50, P95: p95, P99: p99}
	}
	parts := []loadgen.PartLatency{
		{Part: "warmup", All: p(600, 0.012, 0.03, 0.041), OK: p(600, 0.012, 0.03, 0.041)},
		{Part: "spike", All: p(300, 0.2, 0.5, 0.5), OK: p(120, 0.1, 0.2, 0.3)},
		{Part: "observe"},
	}
	got := phaseLatencies(parts)
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"phase":"warmup","attempts":600,"p50_s":0.012,"p95_s":0.03,"p99_s":0.041,"succeeded":{"attempts":600,"p50_s":0.012,"p95_s":0.03,"p99_s":0.041}},` +
		`{"phase":"spike","attempts":300,"p50_s":0.2,"p95_s":0.5,"p99_s":0.5,"succeeded":{"attempts":120,"p50_s":0.1,"p95_s":0.2,"p99_s":0.3}},` +
		`{"phase":"observe","attempts":0,"p50_s":null,"p95_s":null,"p99_s":null,"succeeded":{"attempts":0,"p50_s":null,"p95_s":null,"p99_s":null}}]`
	if string(b) != want {
		t.Errorf("latency by phase\n %s, want\n %s", b, want)
	}
	// Parts named in another order come out in the phases' order, and
	// one never named (a run stopped in its warmup) without attempts.
	got = phaseLatencies([]loadgen.PartLatency{{Part: "on_trap", All: p(5, 1, 1, 1)}, {Part: "warmup", All: p(1, 1, 1, 1)}})
	var names []string
	for _, l := range got {
		names = append(names, fmt.Sprintf("%s:%d", l.Phase, l.Attempts))
	}
	if s := strings.Join(names, " "); s != "warmup:1 spike:0 observe:0 on_trap:5" {
		t.Errorf("phases %q", s)
	}
	if phaseLatencies(nil) != nil {
		t.Error("latency by phase from no parts")
	}
}

// The latency by phase comes from the driver, not from timeline.csv:
// `trigger judge` keeps the run's, and gives its result.json byte for byte.
func TestJudgeKeepsLatencyByPhase(t *testing.T) {
	src, dir := filepath.Join("testdata", "runs", "recovered"), t.TempDir()
	doc, err := report.ReadResult(filepath.Join(src, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	doc.Observation.LatencyByPhase = phaseLatencies([]loadgen.PartLatency{
		{Part: "warmup", All: loadgen.Percentiles{Count: 150, P50: 0.011, P95: 0.012, P99: 0.0135}, OK: loadgen.Percentiles{Count: 150, P50: 0.011, P95: 0.012, P99: 0.0135}},
		{Part: "spike", All: loadgen.Percentiles{Count: 1000, P50: 0.25, P95: 0.5, P99: 0.5}},
	})
	if err := report.WriteResult(filepath.Join(dir, ResultFile), doc); err != nil {
		t.Fatal(err)
	}
	tl, err := os.ReadFile(filepath.Join(src, report.TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, report.TimelineFile), tl, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Judge(JudgeOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ls := res.Document.Observation.LatencyByPhase; len(ls) != 3 || ls[1].Attempts != 1000 {
		t.Errorf("the replay's latency by phase %+v, want the run's", ls)
	}
	sameResult(t, dir, res.Document)
}
