package analysis

import (
	"encoding/json"
	"strings"
	"testing"
)

// rows makes trials with the verdicts given, each passing its own gate
// unless trapped or metastable (the trap or recovery criterion failed).
func rows(verdicts ...Verdict) []TrialRow {
	var out []TrialRow
	for i, v := range verdicts {
		r := TrialRow{Index: i + 1, Seed: uint64(i + 1), Verdict: v}
		g := EvaluateGate(GateSpec{}, v, 30, 60, 3)
		if v == VerdictRecovered {
			r.RecoveryS = Num(float64(10 + i))
		}
		r.Gate = g
		out = append(out, r)
	}
	return out
}

func repeat(v Verdict, n int) []Verdict {
	out := make([]Verdict, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Far from the boundary two agreeing trials end a series of 10 by the
// sequential rule at 0.5, either way; one trap and one recovery do not;
// --all-trials never stops early; a series that ran all it asked ends
// without being early.
func TestTrialsStopSequential(t *testing.T) {
	spec := TrialsSpec{Asked: 10}
	for _, c := range []struct {
		name     string
		verdicts []Verdict
		stop     bool
		word     string
	}{
		{"no trial", nil, false, ""},
		{"one trapped", []Verdict{VerdictTrapped}, false, ""},
		{"two trapped", []Verdict{VerdictTrapped, VerdictTrapped}, true, "above 50 %"},
		{"two recovered", []Verdict{VerdictRecovered, VerdictRecovered}, true, "below 50 %"},
		{"no trigger counts as clean", []Verdict{VerdictNoTrigger, VerdictRecovered}, true, "below 50 %"},
		{"mixed", []Verdict{VerdictTrapped, VerdictRecovered}, false, ""},
		{"inconclusive is no draw", []Verdict{VerdictInconclusive, VerdictTrapped}, false, ""},
		{"metastable is not trapped here", []Verdict{VerdictMetastable, VerdictMetastable}, true, "below 50 %"},
	} {
		stop, early, reason := TrialsStop(spec, rows(c.verdicts...))
		if stop != c.stop || early != c.stop || !strings.Contains(reason, c.word) {
			t.Errorf("%s: stop %v early %v %q, want stop %v with %q", c.name, stop, early, reason, c.stop, c.word)
		}
	}
	if stop, _, _ := TrialsStop(TrialsSpec{Asked: 10, AllTrials: true}, rows(VerdictTrapped, VerdictTrapped)); stop {
		t.Error("--all-trials stopped early")
	}
	stop, early, reason := TrialsStop(TrialsSpec{Asked: 3, AllTrials: true}, rows(VerdictTrapped, VerdictRecovered, VerdictTrapped))
	if !stop || early || !strings.Contains(reason, "all 3 trials") {
		t.Errorf("all ran: stop %v early %v %q", stop, early, reason)
	}
}

// With max_trap_probability the series stops as soon as the gate can no
// longer pass, and not before: clean trials go on (another could still
// trap), a trap within trials that cannot absorb it stops it. A gate the
// trials asked cannot pass falls back on the sequential rule.
func TestTrialsStopGate(t *testing.T) {
	spec := TrialsSpec{Asked: 80, MaxTrapProbability: 0.05}
	if stop, _, _ := TrialsStop(spec, rows(repeat(VerdictRecovered, 20)...)); stop {
		t.Error("20 clean trials of 80 stopped: the gate can still pass, and fail")
	}
	stop, early, reason := TrialsStop(spec, rows(VerdictRecovered, VerdictTrapped))
	if !stop || !early || !strings.Contains(reason, "can no longer pass") {
		t.Errorf("a trap at 0.05 in 80: stop %v early %v %q", stop, early, reason)
	}
	// Metastable counts as trapped for the gate.
	if stop, _, _ := TrialsStop(spec, rows(VerdictMetastable)); !stop {
		t.Error("a metastable trial did not stop a 0.05 gate of 80")
	}
	// 1 of 200 can still pass at 0.05 (upper end 2.8 %).
	if stop, _, _ := TrialsStop(TrialsSpec{Asked: 200, MaxTrapProbability: 0.05}, rows(VerdictTrapped)); stop {
		t.Error("one trap in 200 asked stopped: 1 of 200 passes 0.05")
	}
	// Another criterion failed: the gate can no longer pass.
	r := rows(VerdictRecovered)
	r[0].Gate.Criteria = append(r[0].Gate.Criteria, GateCriterion{Name: "amplification", Detail: "amplification 9 exceeds the maximum of 4"})
	if stop, _, reason := TrialsStop(spec, r); !stop || !strings.Contains(reason, "amplification 9") {
		t.Errorf("a failed amplification: stop %v %q", stop, reason)
	}
	// 10 trials cannot pass 0.05: the sequential rule decides.
	small := TrialsSpec{Asked: 10, MaxTrapProbability: 0.05}
	if stop, _, reason := TrialsStop(small, rows(VerdictRecovered, VerdictRecovered)); !stop || !strings.Contains(reason, "sequential") {
		t.Errorf("10 asked at 0.05, two clean: stop %v %q", stop, reason)
	}
}

// The series' gate: passes on enough clean trials, fails on a trap that
// leaves the bound over p, is inconclusive on too few clean trials (and
// says it cannot pass with the trials asked), fails on another criterion.
// Without max_trap_probability every trial's own gate counts.
func TestJudgeTrials(t *testing.T) {
	g := JudgeTrials(TrialsSpec{Asked: 73, MaxTrapProbability: 0.05}, rows(repeat(VerdictRecovered, 73)...))
	if !g.Passed || g.Inconclusive || *g.CleanTrialsNeeded != 73 || g.CannotPass != "" || *g.UpperBound > 0.05 {
		t.Errorf("73 clean at 0.05: %+v", g)
	}
	g = JudgeTrials(TrialsSpec{Asked: 10, MaxTrapProbability: 0.05}, rows(repeat(VerdictRecovered, 10)...))
	if g.Passed || !g.Inconclusive || !strings.Contains(g.CannotPass, "cannot pass with 10 trials") || len(g.Failures) != 0 {
		t.Errorf("10 clean at 0.05: %+v", g)
	}
	g = JudgeTrials(TrialsSpec{Asked: 10, MaxTrapProbability: 0.5}, rows(VerdictTrapped, VerdictRecovered, VerdictRecovered))
	if g.Passed || g.Inconclusive || len(g.Failures) != 1 {
		t.Errorf("1 of 3 at 0.5: %+v", g)
	}
	// Trapped trials' own trap criterion does not fail the series under
	// the probability gate; 1 of 9 passes 0.5 (upper end 43.5 %).
	g = JudgeTrials(TrialsSpec{Asked: 9, MaxTrapProbability: 0.5}, rows(append([]Verdict{VerdictTrapped}, repeat(VerdictRecovered, 8)...)...))
	if !g.Passed {
		t.Errorf("1 of 9 at 0.5: %+v", g)
	}
	// A no-trigger trial is no clean trial: 73 of them pass nothing (a
	// spike that never triggered says nothing about the trap), beside 73
	// clean trials they change nothing.
	g = JudgeTrials(TrialsSpec{Asked: 73, MaxTrapProbability: 0.05}, rows(repeat(VerdictNoTrigger, 73)...))
	if g.Passed || !g.Inconclusive || g.TrapProbability != nil || !strings.Contains(strings.Join(g.Reasons, "; "), "no trial triggered") {
		t.Errorf("73 no-trigger at 0.05: %+v", g)
	}
	g = JudgeTrials(TrialsSpec{Asked: 83, MaxTrapProbability: 0.05}, rows(append(repeat(VerdictNoTrigger, 10), repeat(VerdictRecovered, 73)...)...))
	if !g.Passed || g.TrapProbability.Of != 73 {
		t.Errorf("73 clean and 10 no-trigger at 0.05: %+v", g)
	}
	g = JudgeTrials(TrialsSpec{Asked: 80, MaxTrapProbability: 0.05}, rows(append(repeat(VerdictNoTrigger, 10), repeat(VerdictRecovered, 70)...)...))
	if g.Passed || !g.Inconclusive || !strings.Contains(strings.Join(g.Reasons, "; "), "10 trials did not trigger") {
		t.Errorf("70 clean and 10 no-trigger at 0.05: %+v", g)
	}
	// An inconclusive trial is no draw.
	g = JudgeTrials(TrialsSpec{Asked: 9, MaxTrapProbability: 0.5}, rows(VerdictInconclusive))
	if g.Passed || !g.Inconclusive || g.TrapProbability != nil {
		t.Errorf("only inconclusive: %+v", g)
	}
	// Without the gate: one trap fails (allow_trap false), no trigger is
	// inconclusive, all recovered pass.
	if g := JudgeTrials(TrialsSpec{Asked: 3}, rows(VerdictRecovered, VerdictTrapped)); g.Passed || g.Inconclusive {
		t.Errorf("a trap without the gate: %+v", g)
	}
	if g := JudgeTrials(TrialsSpec{Asked: 3}, rows(VerdictRecovered, VerdictNoTrigger)); g.Passed || !g.Inconclusive {
		t.Errorf("a no-trigger without the gate: %+v", g)
	}
	if g := JudgeTrials(TrialsSpec{Asked: 3}, rows(VerdictRecovered, VerdictRecovered)); !g.Passed || g.MaxTrapProbability != nil {
		t.Errorf("all recovered without the gate: %+v", g)
	}
}

// The document: its summary, the model's odds and whether they lie in the
// measured interval, the outcome; it encodes to JSON before any trial and
// after (no NaN reaches the encoder).
func TestTrialsDocumentJudge(t *testing.T) {
	model := NewProportion(76, 200)
	d := TrialsDocument{Kind: "trials", TrialsAsked: 10, Trials: []TrialRow{},
		Model: &TrapProbability{Model: "request", Trapped: &model, Runs: 200}}
	d.Judge(0)
	if d.Summary != nil || d.Outcome != TrialsInconclusive || d.ModelInsideMeasured != nil {
		t.Errorf("no trial: %+v", d)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	d.Trials = rows(VerdictTrapped, VerdictRecovered, VerdictRecovered, VerdictTrapped)
	d.Judge(0)
	if d.TrialsRun != 4 || d.Summary.Trapped.Count != 2 || d.ModelInsideMeasured == nil || !*d.ModelInsideMeasured || d.Outcome != TrialsFailed {
		t.Errorf("2 of 4: %+v %+v", d, d.Summary)
	}
	if d.Summary.RecoveryMedianS == nil || *d.Summary.RecoveryMedianS != 11.5 {
		t.Errorf("recovery median %v, want 11.5", d.Summary.RecoveryMedianS)
	}
	d.Trials = rows(repeat(VerdictRecovered, 10)...)
	d.Judge(0)
	if *d.ModelInsideMeasured || d.Outcome != TrialsPassed {
		t.Errorf("0 of 10 beside a model at 38 %%: inside %v outcome %s", *d.ModelInsideMeasured, d.Outcome)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatal(err)
	}
}
