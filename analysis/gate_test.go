package analysis

import (
	"math"
	"strings"
	"testing"
)

func TestEvaluateGate(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name      string
		spec      GateSpec
		verdict   Verdict
		recovery  float64
		projected float64
		a         float64
		passed    bool
		failsWith string
	}{
		// No trigger never passes, whatever else holds.
		{"no trigger", GateSpec{}, VerdictNoTrigger, 0, 0, math.NaN(), false, "no trigger"},
		// A quick recovery within the budget passes.
		{"recovered", GateSpec{MaxRecoveryS: 120}, VerdictRecovered, 67, 67, 3, true, ""},
		// Over the budget fails, naming both times.
		{"slow", GateSpec{MaxRecoveryS: 60}, VerdictRecovered, 67, 67, 3, false, "over the budget"},
		// A trap fails unless allowed.
		{"trapped", GateSpec{}, VerdictTrapped, inf, inf, 3, false, "trapped"},
		{"trap allowed", GateSpec{AllowTrap: true}, VerdictTrapped, inf, inf, 3, true, ""},
		// Metastable fails with a budget, and without one (the horizon is the budget).
		{"metastable with budget", GateSpec{MaxRecoveryS: 60}, VerdictMetastable, inf, 900, 3, false, "over the budget"},
		{"metastable without budget", GateSpec{}, VerdictMetastable, inf, 900, 3, false, "still recovering"},
		// Too much amplification fails; so does an amplification that was
		// not measured: no criterion passes on a value nobody measured.
		{"amplification", GateSpec{MaxAmplification: 4}, VerdictRecovered, 10, 10, 9, false, "exceeds"},
		{"amplification unknown", GateSpec{MaxAmplification: 4}, VerdictRecovered, 10, 10, math.NaN(), false, "not measured"},
		{"amplification unknown, no criterion", GateSpec{}, VerdictRecovered, 10, 10, math.NaN(), true, ""},
	} {
		g := EvaluateGate(tc.spec, tc.verdict, tc.recovery, tc.projected, tc.a)
		if g.Passed != tc.passed {
			t.Errorf("%s: passed = %v, want %v (%v)", tc.name, g.Passed, tc.passed, g.Failures)
		}
		if tc.failsWith != "" && !strings.Contains(strings.Join(g.Failures, "; "), tc.failsWith) {
			t.Errorf("%s: failures %q do not say %q", tc.name, g.Failures, tc.failsWith)
		}
		if len(g.Criteria) == 0 || g.Failures == nil {
			t.Errorf("%s: criteria %v failures %v", tc.name, g.Criteria, g.Failures)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for in, want := range map[float64]string{
		67.33: "67.3 s", 252: "4 min 12 s", 7500: "2 h 05 min", math.Inf(1): "never",
		-2.5:             "-2.5 s",           // a negative overload
		3e301:            "over 292 years",   // multiplier 1e300: printed −2562047788015215 h before
		MaxDurationS:     "over 292 years",   // no time.Duration holds it
		MaxDurationS / 2: "1281023 h 53 min", // 146 years: still a figure
		9.2e18:           "over 292 years",   // int(s) overflowed here
		-1e300:           "-1e+300 s",        // not 300 digits
		math.Inf(-1):     "-Inf s",
		math.NaN():       "never",
	} {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

// Conclude applies the budget before the gate, and a recovery the budget
// made metastable keeps its measured time as the projection.
func TestConclude(t *testing.T) {
	inf := math.Inf(1)
	spec := GateSpec{MaxRecoveryS: 60}
	c := Conclude(spec, Evidence{Verdict: VerdictRecovered, RecoveryS: 90, ProjectedRecoveryS: math.NaN(), Amplification: 3})
	if c.Verdict != VerdictMetastable || c.ProjectedRecoveryS != 90 || c.Gate.Passed || !strings.Contains(strings.Join(c.Gate.Failures, ";"), "90.0 s") {
		t.Errorf("slow recovery: %+v", c)
	}
	c = Conclude(spec, Evidence{Verdict: VerdictRecovered, RecoveryS: 30, ProjectedRecoveryS: 30, Amplification: 3})
	if c.Verdict != VerdictRecovered || !c.Gate.Passed {
		t.Errorf("quick recovery: %+v", c)
	}
	// An unknown recovery time is not over the budget.
	c = Conclude(spec, Evidence{Verdict: VerdictRecovered, RecoveryS: math.NaN(), ProjectedRecoveryS: math.NaN(), Amplification: math.NaN()})
	if c.Verdict != VerdictRecovered || !math.IsNaN(c.ProjectedRecoveryS) {
		t.Errorf("unknown recovery: %+v", c)
	}
	c = Conclude(spec, Evidence{Verdict: VerdictMetastable, RecoveryS: inf, ProjectedRecoveryS: inf, Amplification: 3})
	if c.Verdict != VerdictMetastable || !math.IsInf(c.ProjectedRecoveryS, 1) || c.Gate.Passed {
		t.Errorf("metastable: %+v", c)
	}
}

// TestGateTrapProbabilityNotJudged: max_trap_probability in one
// document's gate is a criterion neither passed nor failed, naming the
// clean trials it takes; the gate does not pass on it.
func TestGateTrapProbabilityNotJudged(t *testing.T) {
	g := EvaluateGate(GateSpec{MaxTrapProbability: 0.05}, VerdictRecovered, 10, math.NaN(), math.NaN())
	if g.Passed || !g.OnlyNotJudged() {
		t.Fatalf("gate = %+v, want not passed with only a not-judged criterion", g)
	}
	last := g.Criteria[len(g.Criteria)-1]
	if last.Name != CriterionTrapProbability || !last.NotJudged || !strings.Contains(last.Detail, "N ≥ 73") {
		t.Errorf("criterion = %+v", last)
	}
	// A trapped run fails on its own: not only not judged.
	g = EvaluateGate(GateSpec{MaxTrapProbability: 0.05}, VerdictTrapped, math.Inf(1), math.NaN(), math.NaN())
	if g.Passed || g.OnlyNotJudged() {
		t.Errorf("trapped gate = %+v, want failed", g)
	}
	if g := EvaluateGate(GateSpec{}, VerdictRecovered, 10, math.NaN(), math.NaN()); !g.Passed || g.OnlyNotJudged() {
		t.Errorf("no max_trap_probability: gate = %+v", g)
	}
}

// A max_trap_probability no series can pass says so, and names the lowest
// one that can (0.00383: 1,000 clean trials bound P(trap) by 0.38 %).
func TestTrapProbabilityCriterionCannotPass(t *testing.T) {
	c := TrapProbabilityCriterion(0.001)
	if !c.NotJudged || !strings.Contains(c.Detail, "can never pass") || !strings.Contains(c.Detail, "3838 clean trials") || !strings.Contains(c.Detail, "0.00383 needs 1000") {
		t.Errorf("0.001: %+v", c)
	}
	if c := TrapProbabilityCriterion(0.05); !strings.Contains(c.Detail, "N ≥ 73") {
		t.Errorf("0.05: %+v", c)
	}
}
