package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// plan prints the model's P(trap): in its document, the request model's
// odds over the same seeded runs `simulate --model request --runs N`
// makes (the same count), and in its text beside the prediction; for a
// scenario the model does not describe, null with the reason.
func TestPlanShowsTheModelsOdds(t *testing.T) {
	// run changes to the repository's root: one call a subtest.
	cli := func(args ...string) (code int, stdout, stderr string) {
		t.Run(strings.Join(args, " "), func(t *testing.T) { code, stdout, stderr = run(t, args...) })
		return code, stdout, stderr
	}
	code, stdout, stderr := cli("plan", "--json", "scenarios/trapped.hcl")
	doc := decode[analysis.Document](t, code, stdout, stderr)
	tp := doc.TrapProbability
	if tp == nil || tp.Trapped == nil || tp.Model != "request" || tp.FirstSeed != 1 || tp.Runs < 1 || tp.Trapped.Of != tp.Runs {
		t.Fatalf("trap_probability %+v; want the request model's odds", tp)
	}
	if tp.Trapped.Count != tp.Runs || tp.Trapped.Lo < 0.9 {
		t.Errorf("trapped.hcl (A·ρ = 1.2): %d of %d trapped, lo %v; want all", tp.Trapped.Count, tp.Runs, tp.Trapped.Lo)
	}
	code, stdout, stderr = cli("simulate", "--model", "request", "--seed", "1", "--runs", strconv.Itoa(tp.Runs), "--json", "scenarios/trapped.hcl")
	sim := decode[analysis.Document](t, code, stdout, stderr)
	if sim.Runs == nil || sim.Runs.Trapped.Count != tp.Trapped.Count || sim.Runs.Trapped.Of != tp.Trapped.Of {
		t.Errorf("simulate's runs %+v; plan's odds %+v: want the same count", sim.Runs, *tp.Trapped)
	}

	_, text, _ := cli("plan", "scenarios/recovers.hcl")
	if !strings.Contains(text, "P(trap)        model 0 % (95 %: 0–1.9 %), 0 of 200 seeded runs of the request model trapped") {
		t.Errorf("plan's text lacks the model's odds:\n%s", text)
	}

	code, stdout, stderr = cli("plan", "--json", "scenarios/testdata/good/all.hcl")
	doc = decode[analysis.Document](t, code, stdout, stderr)
	if tp := doc.TrapProbability; tp == nil || tp.Trapped != nil || !strings.Contains(tp.ModelUnavailable, "autoscaler") {
		t.Errorf("autoscaled scenario: trap_probability %+v; want null with the reason", tp)
	}
	if !strings.Contains(stdout, `"trapped": null`) {
		t.Errorf("autoscaled scenario's document: want \"trapped\": null\n%s", stdout)
	}
}

// simulate's document carries the model's odds as plan's does, whichever
// model drew its timeline: the same section for the same scenario.
func TestSimulateShowsTheModelsOdds(t *testing.T) {
	docs := map[string]analysis.Document{}
	for _, args := range [][]string{
		{"plan", "--json", "scenarios/recovers.hcl"},
		{"simulate", "--json", "scenarios/recovers.hcl"},
		{"simulate", "--model", "request", "--seed", "7", "--json", "scenarios/recovers.hcl"},
	} {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := run(t, args...)
			docs[name] = decode[analysis.Document](t, code, stdout, stderr)
		})
	}
	plan := docs["plan --json scenarios/recovers.hcl"].TrapProbability
	if plan == nil || plan.Trapped == nil {
		t.Fatalf("plan's trap_probability %+v", plan)
	}
	for name, doc := range docs {
		if tp := doc.TrapProbability; tp == nil || tp.Trapped == nil || *tp.Trapped != *plan.Trapped || tp.Runs != plan.Runs || tp.FirstSeed != 1 {
			t.Errorf("%s: trap_probability %+v; want plan's %+v", name, tp, plan)
		}
	}
}

// A run's text sets its verdict, one draw, beside the model's odds; a
// document without them (recorded before) prints no such line.
func TestRunTextShowsOneDrawBesideTheOdds(t *testing.T) {
	p := analysis.NewProportion(44, 200)
	doc := analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped,
		TrapProbability: &analysis.TrapProbability{Model: "request", Trapped: &p, Runs: 200, FirstSeed: 1}}
	var b strings.Builder
	if err := printDocument(&b, doc); err != nil {
		t.Fatal(err)
	}
	want := "P(trap)        model 22 % (95 %: 17–28 %), 44 of 200 seeded runs of the request model trapped\n" +
		"               this run: trapped — one draw; repeated trials measure the odds\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("run text lacks\n%s\n---\n%s", want, b.String())
	}
	doc.TrapProbability = nil
	b.Reset()
	if err := printDocument(&b, doc); err != nil || strings.Contains(b.String(), "P(trap)") {
		t.Errorf("a document without the odds printed them (%v):\n%s", err, b.String())
	}
}

// A scenario too large for the model's odds (a million first attempts a
// second for an hour) gets no figure but the reason, at once: the budget
// is checked against one run's first attempts before any run.
func TestPlanOddsOfAHugeScenarioAreTooCostly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.hcl")
	src := `scenario "huge" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = 4000000 }
load {
  baseline = 1000000
  warmup   = "20s"
  spike {
    multiplier = 5
    duration   = "10s"
  }
  observe = "1h"
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "plan", "--json", path)
	doc := decode[analysis.Document](t, code, stdout, stderr)
	tp := doc.TrapProbability
	if tp == nil || tp.Trapped != nil || tp.Runs != 0 || tp.AttemptsSimulated != 0 || !strings.Contains(tp.ModelUnavailable, "too costly") {
		t.Errorf("trap_probability %+v; want null, too costly, no run made", tp)
	}
}
