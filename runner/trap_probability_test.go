package runner

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
)

// oddsSection is a trap_probability section with figures to the last bit
// (a Wilson interval), as the model gives them.
func oddsSection() *analysis.TrapProbability {
	p := analysis.NewProportion(7, 30)
	return &analysis.TrapProbability{Model: "request", Trapped: &p, Runs: 30, FirstSeed: 1, RunsWanted: 200,
		AttemptsSimulated: 4_999_123, AttemptBudget: 5_000_000, Note: "the work budget of 5000000 simulated attempts allowed 30 of the 200 runs"}
}

// A run's document carries the model's odds it was given, as result.json
// records them (rounded to 6 significant digits), in the plan the
// referee judges from.
func TestRunDocumentHasTheModelsOdds(t *testing.T) {
	odds := oddsSection()
	test := &convert.Test{Plan: analysis.PlanInputs{Scenario: analysis.ScenarioSection{DemandPerS: 50, CapacityPerS: 100, Multiplier: 5, SpikeS: 10, TimeoutS: 1, ObserveS: 60},
		Layers: []analysis.RetryLayer{{Name: "client", MaxRetries: 2}}}}
	r := newRun(Options{Test: test}, nil, nil, nil, odds)
	got := r.document().TrapProbability
	if got == nil || got.Trapped == nil {
		t.Fatalf("trap_probability %+v; want the model's odds", got)
	}
	if got.Trapped.Lo != analysis.RoundFigure(odds.Trapped.Lo) || got.Trapped.Lo == odds.Trapped.Lo {
		t.Errorf("lo %v; want %v rounded as result.json records it", got.Trapped.Lo, odds.Trapped.Lo)
	}
	if got.Runs != 30 || got.FirstSeed != 1 || got.Trapped.Count != 7 || got.Note != odds.Note {
		t.Errorf("trap_probability %+v; want the section given", got)
	}
	unavailable := &analysis.TrapProbability{Model: "request", ModelUnavailable: "the request model cannot run this scenario"}
	if got := newRun(Options{Test: test}, nil, nil, nil, unavailable).document().TrapProbability; got == nil || got.Trapped != nil || got.ModelUnavailable == "" {
		t.Errorf("unavailable odds became %+v; want null with the reason", got)
	}
}

// `trigger judge` of a run whose result.json has the model's odds gives
// them back as the run wrote them, byte for byte.
func TestReplayKeepsTheTrapProbability(t *testing.T) {
	for _, odds := range []*analysis.TrapProbability{oddsSection(), {Model: "request", FirstSeed: 1, RunsWanted: 200, AttemptBudget: 5_000_000,
		ModelUnavailable: "the request model keeps the service's pods fixed"}} {
		src := filepath.Join("testdata", "runs", "recovered")
		dir := t.TempDir()
		doc, err := report.ReadResult(filepath.Join(src, ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		doc.TrapProbability = odds
		if err := report.WriteResult(filepath.Join(dir, ResultFile), doc); err != nil {
			t.Fatal(err)
		}
		timeline, err := os.ReadFile(filepath.Join(src, report.TimelineFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, report.TimelineFile), timeline, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Judge(JudgeOptions{Dir: dir})
		if res == nil {
			t.Fatalf("judge: %v", err)
		}
		recorded, err := report.ReadResult(filepath.Join(dir, ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Document.TrapProbability, recorded.TrapProbability) {
			t.Errorf("replayed trap_probability %+v, recorded %+v", res.Document.TrapProbability, recorded.TrapProbability)
		}
		sameResult(t, dir, res.Document)
	}
}
