package analysis

import (
	"fmt"
	"math"
)

// TrapProbability is the `trap_probability` section of a result
// document: the model's P(trap) for the test, the share of seeded runs of
// the request-level model that ended trapped, with its Wilson 95 %
// interval (docs/model.md, "Trap probability"). plan, simulate and run
// give the same figure for the same scenario (the same seeds, the same
// runs), so a run's one draw and repeated trials' measured odds stand
// beside it.
//
// A figure whose model's preconditions did not hold is null with the
// reason, never a number: Trapped is nil and ModelUnavailable says why
// (the request model does not describe the scenario, refused its
// configuration, or one run would cost more than the work budget).
type TrapProbability struct {
	// Model names the model the odds come from: "request".
	Model string `json:"model"`
	// Trapped is the model's P(trap): Count of Of runs trapped, P = Count/Of,
	// Lo and Hi its Wilson 95 % interval, fractions in [0, 1]; null when
	// the model could not give it.
	Trapped *Proportion `json:"trapped"`
	// Runs is how many seeded runs were made (Trapped.Of); run i used the
	// seed FirstSeed + i.
	Runs      int    `json:"runs"`
	FirstSeed uint64 `json:"first_seed"`
	// RunsWanted is how many runs were asked for; Runs is fewer when the
	// work budget stopped them first (Note says so).
	RunsWanted int `json:"runs_wanted"`
	// AttemptsSimulated counts the attempts the runs simulated (first
	// attempts, retries and hidden layers' copies); AttemptBudget is the
	// work budget, attempts: no run starts once the runs before it reached
	// it. Counting attempts, not wall time, keeps the figure reproducible.
	AttemptsSimulated int64 `json:"attempts_simulated"`
	AttemptBudget     int64 `json:"attempt_budget"`
	// ModelUnavailable says why Trapped is null; empty when it is not.
	ModelUnavailable string `json:"model_unavailable,omitempty"`
	// Note says why fewer runs than RunsWanted were made.
	Note string `json:"note,omitempty"`
}

// ModelText is the model's odds in words: "22 % (95 %: 15–31 %), 44 of
// 200 seeded runs of the request model trapped", or why there are none.
func (t *TrapProbability) ModelText() string {
	switch {
	case t == nil:
		return "not computed"
	case t.Trapped == nil:
		return "not available: " + t.ModelUnavailable
	}
	p := t.Trapped
	s := fmt.Sprintf("%s (95 %%: %s), %d of %d seeded runs of the %s model trapped",
		Percent(p.P), PercentRange(p.Lo, p.Hi), p.Count, p.Of, t.Model)
	if t.Note != "" {
		s += " (" + t.Note + ")"
	}
	return s
}

// OneDrawText is what a single run measures of P(trap), in words: its
// verdict, one draw of the odds; a run that could not tell (inconclusive,
// or no verdict) is no draw at all; "" for a document that is not a run.
func OneDrawText(kind string, v Verdict) string {
	switch {
	case kind != "run":
		return ""
	case v == "" || v == VerdictInconclusive:
		return "this run could not tell: no draw"
	}
	return fmt.Sprintf("this run: %s — one draw; repeated trials measure the odds", v)
}

// Percent writes a fraction as a percentage: whole percents, one decimal
// below 10 % and above 90 % ("1.9 %", "22 %", "98.1 %"), "0 %" and
// "100 %" exact; "–" for NaN.
func Percent(x float64) string { return percentNumber(x) + " %" }

// PercentRange writes an interval of fractions as "15–31 %".
func PercentRange(lo, hi float64) string { return percentNumber(lo) + "–" + percentNumber(hi) + " %" }

func percentNumber(x float64) string {
	v := 100 * x
	switch {
	case math.IsNaN(v):
		return "–"
	case v == 0 || v == 100:
		return fmt.Sprintf("%.0f", v)
	case v < 10 || v > 90:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
