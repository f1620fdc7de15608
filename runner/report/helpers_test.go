package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixtures are real runs against the specimen (examples/specimen, 2 pods
// × 100/s): scenarios/recovers.hcl and scenarios/trapped.hcl, as
// `trigger run` left them (result.json and timeline.csv).
var fixtures = []string{"recovered", "trapped"}

// loadFixture reads testdata/<name>/result.json and timeline.csv.
func loadFixture(t *testing.T, name string) (analysis.Document, []analysis.MeasuredSecond) {
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
	doc, err := analysis.SimulatePlan(analysis.PlanInputs{
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
