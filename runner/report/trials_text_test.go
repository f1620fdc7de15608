package report

import (
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// trialsDoc is a judged series: 4 of 10 trapped, the model at 76 of 200.
func trialsDoc(early bool) analysis.TrialsDocument {
	model := analysis.NewProportion(76, 200)
	d := analysis.TrialsDocument{Kind: "trials", Scenario: analysis.TrialsScenario{Name: "edge | <b>"}, TrialsAsked: 10, BaseSeed: 1,
		Model: &analysis.TrapProbability{Model: "request", Trapped: &model, Runs: 200}}
	for i := range 10 {
		v := analysis.VerdictRecovered
		if i%5 < 2 {
			v = analysis.VerdictTrapped
		}
		r := analysis.TrialRow{Index: i + 1, Seed: uint64(i + 1), Folder: "trial", Verdict: v, Gate: analysis.EvaluateGate(analysis.GateSpec{AllowTrap: true}, v, 20, 20, 3)}
		if v == analysis.VerdictRecovered {
			r.RecoveryS = analysis.Num(float64(10 + i))
		}
		d.Trials = append(d.Trials, r)
	}
	d.Judge(0)
	d.StoppedReason, d.StoppedEarly = "all 10 trials asked ran", early
	return d
}

// The summary says the odds with their intervals beside the model's and
// whether it lies inside, the recovery's spread, the gate, why it ended
// (early, when so) and every trial's folder; trials.md the same, with the
// scenario's name escaped.
func TestWriteTrialsText(t *testing.T) {
	var b strings.Builder
	if err := WriteTrialsText(&b, trialsDoc(true)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"trapped in 4 of 10 trials: 40 % (95 %: 17–69 %); model 38 % (95 %: 32–45 %), inside the interval",
		"recovered in 6 of 10 trials: 60 %",
		"recovery median 15.5 s (from 12.0 s to 19.0 s over 6 recovered)",
		"Gate      passed: every trial's own gate",
		"Ended     early: all 10 trials asked ran (passed)",
		"10     10    recovered",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	if err := WriteTrialsMarkdown(&b, trialsDoc(false)); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "<b>") || !strings.Contains(md, "- trapped in 4 of 10 trials") || !strings.Contains(md, "| 1 | 1 | trapped |") {
		t.Errorf("trials.md:\n%s", md)
	}
}

// One run's report marks max_trap_probability as not judged, not failed.
func TestMarkdownGateNotJudged(t *testing.T) {
	doc := analysis.Document{Kind: "run", Verdict: analysis.VerdictRecovered,
		Gate: analysis.EvaluateGate(analysis.GateSpec{MaxTrapProbability: 0.05}, analysis.VerdictRecovered, 10, 10, 3)}
	var b strings.Builder
	if err := WriteMarkdown(&b, doc); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "### Gate: not judged") || !strings.Contains(got, "❔ **trap_probability**") {
		t.Errorf("report.md:\n%s", got)
	}
}
