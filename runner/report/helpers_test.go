package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixtures are real runs against the specimen (examples/specimen, 2 pods
// × 100/s): scenarios/recovers.hcl and scenarios/trapped.hcl, as
// `trigger run` left them (result.json and timeline.csv).
var fixtures = []string{"recovered", "trapped"}

// loadFixture reads testdata/<name>/result.json and timeline.csv.
func loadFixture(t *testing.T, name string) (analysis.Document, []analysis.TimelineRow) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	doc, err := ReadResult(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadTimeline(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc, rows
}

// golden compares got with testdata/golden/<name>, or rewrites the file
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", name, got, want)
	}
}

// simulateDoc is what `trigger simulate` produces for a scenario like
// recovers.hcl: a fluid model's document with its own timeline.
func simulateDoc(t *testing.T) analysis.Document {
	t.Helper()
	doc, err := fluid.SimulatePlan(analysis.PlanInputs{
		Scenario: analysis.ScenarioSection{Name: "recovers", DemandPerS: 50, CapacityPerS: 200, Multiplier: 5,
			SpikeS: 10, WarmupS: 20, ObserveS: 90, TimeoutS: 1},
		Layers: []analysis.RetryLayer{{Name: "client", MaxRetries: 2}},
		Gate:   analysis.GateSpec{MaxRecoveryS: 120},
	}, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != "simulate" || len(doc.Timeline) < 100 {
		t.Fatalf("simulate document: kind %q, %d samples", doc.Kind, len(doc.Timeline))
	}
	return doc
}

// splitFirstFailures gives a fixture's rows the failed first attempts by
// class, which the fixtures' timeline.csv (recorded before the classes
// were) lacks; their every failure was a timeout, so the split is made up:
// of each second's failed first attempts, 60 % timed out, 30 % were
// answered with an error status and the rest could not connect.
func splitFirstFailures(rows []analysis.TimelineRow) []analysis.TimelineRow {
	out := append([]analysis.TimelineRow(nil), rows...)
	for i := range out {
		f := out[i].FirstFailed()
		out[i].FirstTimeouts = math.Round(0.6 * f)
		out[i].FirstErrors = math.Round(0.3 * f)
		out[i].FirstConnect = f - out[i].FirstTimeouts - out[i].FirstErrors
	}
	return out
}

// ingressServedDoc is the trapped run as if the service had no wait query
// and sat behind a proxy with a 300 ms per-try timeout: judged on the
// backlog from ingress − served, which settled 3 s after the spike, with
// every field the analysis added set (intervals, signals, patience, first
// attempts by class). Its rows carry the backlog from the spike's start
// on, 10 % above the service's gauge (which the rows keep).
func ingressServedDoc(t *testing.T) (analysis.Document, []analysis.TimelineRow) {
	t.Helper()
	doc, rows := loadFixture(t, "trapped")
	rows = splitFirstFailures(rows)
	for i := range rows {
		rows[i].BacklogWaitS = math.NaN()
		if rows[i].TS >= 20 {
			rows[i].BacklogWaitS = 1.1 * rows[i].WaitS
		}
	}
	o := doc.Observation
	o.WaitSource = "ingress-served"
	o.WaitSourceReason = "the scenario has no wait query, and no tracer was answered by the service"
	o.WaitDelayS = analysis.Num(3)
	o.WaitSlopeLo, o.WaitSlopeHi = analysis.Num(0.13), analysis.Num(0.21)
	o.PatienceS, o.PatienceFrom = analysis.Num(0.3), `layer "proxy"'s per-try timeout`
	o.FirstFailed, o.FirstTimedOut, o.FirstErrors, o.FirstConnect = analysis.Num(4453), analysis.Num(0), analysis.Num(4400), analysis.Num(53)
	o.Signals = []analysis.SignalInfo{
		{Name: "ingress", Query: "sum(rate(http_requests_total[2s]))", RangeS: 2, ScrapeIntervalS: 1, ScrapeIntervalFrom: "the embedded Prometheus", DelayS: 3},
		{Name: "served", Query: "sum(rate(http_served_total[2s] offset 1s))", RangeS: 2, OffsetS: 1, ScrapeIntervalS: 1, DelayS: 3},
	}
	doc.Amplification.MeasuredLo, doc.Amplification.MeasuredHi = analysis.Num(2.91), analysis.Num(3.1)
	for i, e := range o.Estimates {
		switch e.Name {
		case "amplification_fail":
			o.Estimates[i].MeasuredLo, o.Estimates[i].MeasuredHi = analysis.Num(2.91), analysis.Num(3.1)
		case "wait_slope":
			o.Estimates[i].MeasuredLo, o.Estimates[i].MeasuredHi = analysis.Num(0.19), analysis.Num(0.27)
		case "baseline_per_s":
			o.Estimates[i].MeasuredLo, o.Estimates[i].MeasuredHi = analysis.Num(79.2), analysis.Num(82.1)
		}
	}
	doc.Prediction.JudgeAfterS = analysis.Num(7)
	doc.Prediction.JudgeAfterNote = "3.0 s of delay, then 4 samples one second apart"
	return doc, rows
}
