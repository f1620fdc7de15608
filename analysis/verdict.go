package analysis

import "math"

// Verdict is the answer of a trigger test, from a model or a real run
// (docs/design.md, "The result document"; how each is reached:
// docs/model.md, "What a trigger test measures").
type Verdict string

// The verdicts: four claims about the service, and inconclusive.
const (
	// VerdictNoTrigger: the spike never pushed waits past the timeout (nor
	// made the service refuse work). Inconclusive, never a pass.
	VerdictNoTrigger Verdict = "no-trigger"
	// VerdictRecovered: the service came back within the budget and horizon.
	VerdictRecovered Verdict = "recovered"
	// VerdictMetastable: still recovering at the horizon, or slower than the
	// recovery budget; a projected recovery time goes with it.
	VerdictMetastable Verdict = "metastable"
	// VerdictTrapped: the evidence says A_fail·ρ ≥ 1; the service stays failed.
	VerdictTrapped Verdict = "trapped"
	// VerdictInconclusive: a run could not tell (the baseline already
	// failed, data went missing, the signals could not show a verdict within
	// the observation, or the run was stopped first). It claims nothing
	// about the service and never passes.
	VerdictInconclusive Verdict = "inconclusive"
)

// ApplyBudget turns a recovery slower than the budget into metastable: a
// recovery that takes longer than the team can afford is operationally a
// failure (docs/model.md, "The trap": critical slowing). budgetS ≤ 0 means
// no budget.
func ApplyBudget(v Verdict, recoveryS, budgetS float64) Verdict {
	if v == VerdictRecovered && budgetS > 0 && recoveryS > budgetS {
		return VerdictMetastable
	}
	return v
}

// projectRecovery projects the recovery time, in seconds from the spike's
// end, of a service still failing elapsedS seconds after the spike ended
// with wait waitS falling at slopeS seconds per second (negative): the wait
// falls to τ_out at that slope, then to zero at 1 − ρ (docs/model.md,
// "The trap", phases).
// It returns +Inf when the wait is not falling.
func projectRecovery(elapsedS, waitS, slope, timeoutS, rho float64) float64 {
	if slope >= 0 {
		return math.Inf(1)
	}
	rest := 0.0
	if waitS > timeoutS {
		rest = (waitS - timeoutS) / -slope
		waitS = timeoutS
	}
	if rho < 1 {
		rest += waitS / (1 - rho)
	} else {
		return math.Inf(1)
	}
	return elapsedS + rest
}
