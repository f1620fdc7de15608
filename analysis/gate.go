package analysis

import (
	"fmt"
	"math"
)

// GateSpec is the release gate of a scenario (its `gate` block:
// docs/scenarios.md).
type GateSpec struct {
	// MaxRecoveryS is the recovery budget in seconds; zero means none.
	MaxRecoveryS float64 `json:"max_recovery_s,omitempty"`
	// AllowTrap lets a trapped verdict pass the gate.
	AllowTrap bool `json:"allow_trap"`
	// MaxAmplification fails the gate when the amplification exceeds it;
	// zero means none.
	MaxAmplification float64 `json:"max_amplification,omitempty"`
	// MaxTrapProbability is the largest P(trap) the gate accepts over
	// repeated trials (TrialsGate); zero means none. One document cannot
	// judge it (TrapProbabilityCriterion).
	MaxTrapProbability float64 `json:"max_trap_probability,omitempty"`
}

// GateCriterion is one criterion of the gate and how it went; each becomes
// one JUnit test case.
type GateCriterion struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
	// NotJudged marks a criterion this document cannot judge (a
	// max_trap_probability on one run): not passed, and not failed either
	// (exit 3 when it is the only one not passed).
	NotJudged bool `json:"not_judged,omitempty"`
}

// GateResult is the `gate` section of the result document.
type GateResult struct {
	Passed   bool            `json:"passed"`
	Failures []string        `json:"failures"`
	Criteria []GateCriterion `json:"criteria"`
}

// Evidence is what a verdict is concluded from: the verdict before the
// recovery budget and the numbers the gate judges.
type Evidence struct {
	// Verdict is the model's, the closed forms' or the run's verdict
	// before the recovery budget is applied.
	Verdict Verdict
	// RecoveryS is the measured or predicted recovery time, seconds from
	// the spike's end: +Inf when the service did not recover, NaN when it
	// is unknown (then no budget applies to it).
	RecoveryS float64
	// ProjectedRecoveryS is the projected recovery time of a service still
	// failing, seconds from the spike's end; NaN or +Inf when there is none.
	ProjectedRecoveryS float64
	// Amplification is the A the gate judges: for a run the A it stands by
	// (measured A_fail, else A from the wait's slope or the recovery), a
	// model's A_fail or the scenario's A for plan and simulate; NaN when
	// unknown. AmplificationFrom names it when it is not A_fail.
	Amplification     float64
	AmplificationFrom string
}

// Conclusion is a verdict after the recovery budget, and the gate on it.
type Conclusion struct {
	Verdict Verdict
	// ProjectedRecoveryS is the evidence's projection; for a recovery the
	// budget made metastable without a finite projection, the recovery
	// time itself (seconds from the spike's end).
	ProjectedRecoveryS float64
	Gate               GateResult
}

// Conclude applies the recovery budget to the verdict (ApplyBudget) and
// judges the result against the gate (EvaluateGate): the one assembly of
// plan, simulate and run (docs/model.md, "What a trigger test measures",
// items 3 and 5).
func Conclude(spec GateSpec, e Evidence) Conclusion {
	c := Conclusion{Verdict: ApplyBudget(e.Verdict, e.RecoveryS, spec.MaxRecoveryS), ProjectedRecoveryS: e.ProjectedRecoveryS}
	if c.Verdict == VerdictMetastable && !finite(c.ProjectedRecoveryS) && finite(e.RecoveryS) {
		// Recovered, but slower than the budget: the measured time is the
		// projection.
		c.ProjectedRecoveryS = e.RecoveryS
	}
	c.Gate = EvaluateGate(spec, c.Verdict, e.RecoveryS, c.ProjectedRecoveryS, e.Amplification)
	if e.AmplificationFrom != "" && e.AmplificationFrom != "A_fail" {
		for i := range c.Gate.Criteria {
			if cr := &c.Gate.Criteria[i]; cr.Name == "amplification" && !math.IsNaN(e.Amplification) {
				cr.Detail += " (" + e.AmplificationFrom + ": A_fail was not measured)"
			}
		}
		c.Gate.Failures = failuresOf(c.Gate.Criteria)
	}
	return c
}

// EvaluateGate judges a verdict against the gate (docs/model.md, "What a
// trigger test measures", item 5). recoveryS is the measured or predicted
// recovery time (+Inf or NaN when none), projectedS the projection for a
// metastable verdict, and amplification the measured A_fail (NaN when
// unknown).
// A no-trigger or inconclusive verdict never passes: the test said nothing.
func EvaluateGate(spec GateSpec, verdict Verdict, recoveryS, projectedS, amplification float64) GateResult {
	var g GateResult
	add := func(name string, passed bool, detail string) {
		g.Criteria = append(g.Criteria, GateCriterion{Name: name, Passed: passed, Detail: detail})
		if !passed {
			g.Failures = append(g.Failures, detail)
		}
	}
	if verdict == VerdictInconclusive {
		add("evidence", false, "inconclusive: the run could not tell whether the service recovers")
		g.Passed = false
		return g
	}
	if verdict == VerdictNoTrigger {
		add("trigger", false, "no trigger: the spike never pushed waits past the client timeout, so the test says nothing")
	} else {
		add("trigger", true, "the spike pushed waits past the client timeout")
	}
	switch {
	case verdict == VerdictTrapped && !spec.AllowTrap:
		add("trap", false, "trapped: the service stayed failed after demand returned to normal, its wait not falling")
	case verdict == VerdictTrapped:
		add("trap", true, "trapped, and the gate allows a trap")
	case verdict != VerdictNoTrigger:
		add("trap", true, "not trapped")
	}
	if verdict == VerdictMetastable && spec.MaxRecoveryS <= 0 {
		// Without a budget the horizon is the budget: a service still
		// failing when the observation ends has not recovered.
		add("recovery", false, "still recovering when the observation ended (projected recovery "+FormatSeconds(projectedS)+")")
	}
	if spec.MaxRecoveryS > 0 && (verdict == VerdictRecovered || verdict == VerdictMetastable) {
		budget := spec.MaxRecoveryS
		switch {
		case verdict == VerdictRecovered && recoveryS <= budget:
			add("recovery", true, fmt.Sprintf("recovered in %s, within the budget of %s", FormatSeconds(recoveryS), FormatSeconds(budget)))
		case math.IsInf(projectedS, 0) || math.IsNaN(projectedS):
			add("recovery", false, fmt.Sprintf("not recovered within the budget of %s", FormatSeconds(budget)))
		default:
			took := recoveryS
			if verdict == VerdictMetastable || math.IsInf(took, 0) || math.IsNaN(took) {
				took = projectedS
			}
			add("recovery", false, fmt.Sprintf("recovery takes %s (projected or measured), over the budget of %s", FormatSeconds(took), FormatSeconds(budget)))
		}
	}
	if spec.MaxAmplification > 0 && math.IsNaN(amplification) {
		// Never on a predicted value in its place: a criterion that could
		// not be measured is not met.
		add("amplification", false, fmt.Sprintf("amplification not measured (no A_fail from an ingress counter before the queue, no wait slope or recovery time to infer A from), so the maximum of %.2f cannot be shown to hold", spec.MaxAmplification))
	}
	if spec.MaxAmplification > 0 && !math.IsNaN(amplification) {
		ok := amplification <= spec.MaxAmplification
		detail := fmt.Sprintf("amplification %.2f, at most %.2f allowed", amplification, spec.MaxAmplification)
		if !ok {
			detail = fmt.Sprintf("amplification %.2f exceeds the maximum of %.2f", amplification, spec.MaxAmplification)
		}
		add("amplification", ok, detail)
	}
	if spec.MaxTrapProbability > 0 {
		c := TrapProbabilityCriterion(spec.MaxTrapProbability)
		g.Criteria = append(g.Criteria, c)
		g.Failures = append(g.Failures, c.Detail)
	}
	g.Passed = len(g.Failures) == 0
	if g.Failures == nil {
		g.Failures = []string{}
	}
	return g
}

// CriterionTrapProbability names the gate's max_trap_probability
// criterion.
const CriterionTrapProbability = "trap_probability"

// TrapProbabilityCriterion is max_trap_probability = p in the gate of one
// document (plan, simulate, a single run): not judged, since one trial
// bounds P(trap) no lower than 79 % (Wilson, 0 of 1); it names the clean
// trials `trigger run --trials N` needs (CleanTrialsFor).
func TrapProbabilityCriterion(p float64) GateCriterion {
	need := CleanTrialsFor(p)
	detail := fmt.Sprintf("max_trap_probability %g not judged: one run cannot bound P(trap); it takes trigger run --trials N with N ≥ %d, every trial clean", p, need)
	if need > MaxTrials {
		detail = fmt.Sprintf("max_trap_probability %g can never pass: bounding P(trap) under it takes %d clean trials, more than the %d a series runs; %g needs %d",
			p, need, MaxTrials, lowestPassable(), CleanTrialsFor(lowestPassable()))
	}
	return GateCriterion{Name: CriterionTrapProbability, NotJudged: true, Detail: detail}
}

// Bounds of a series of repeated trials (trigger run --trials N).
const (
	MinTrials = 2
	MaxTrials = 1000
)

// lowestPassable is the lowest max_trap_probability, to three significant
// digits rounded up, that MaxTrials clean trials can pass: z²/(n + z²).
func lowestPassable() float64 {
	x := z95 * z95 / (MaxTrials + z95*z95)
	scale := math.Pow(10, 2-math.Floor(math.Log10(x)))
	return math.Ceil(x*scale) / scale
}

// OnlyNotJudged says whether every criterion a gate did not pass is one
// it could not judge (and at least one is).
func (g GateResult) OnlyNotJudged() bool {
	any := false
	for _, c := range g.Criteria {
		switch {
		case c.Passed:
		case c.NotJudged:
			any = true
		default:
			return false
		}
	}
	return any
}

// failuresOf lists the details of the criteria that failed.
func failuresOf(cs []GateCriterion) []string {
	out := []string{}
	for _, c := range cs {
		if !c.Passed {
			out = append(out, c.Detail)
		}
	}
	return out
}

// MaxDurationS is the longest duration, in seconds, a time.Duration can
// hold (2⁶³ − 1 ns, about 292 years). A model can predict longer times (a
// spike of multiplier 1e300 drains in 3e301 s): FormatSeconds shows them
// as "over 292 years", and code that turns seconds into a time.Duration
// must treat them as unbounded instead of converting (the conversion
// overflows into a negative duration).
const MaxDurationS = float64(math.MaxInt64) / 1e9

// FormatSeconds renders a duration in seconds for people: "67.3 s",
// "4 min 12 s", "2 h 05 min"; "never" for +Inf (and NaN); "over 292
// years" for a finite time at or above MaxDurationS, which is a time
// (a recovery that takes that long still recovers: "recovered after
// never" would contradict itself); a negative one that long in
// scientific notation ("-1e+300 s"). Never an overflowed figure.
func FormatSeconds(s float64) string {
	switch {
	case math.IsInf(s, 1) || math.IsNaN(s):
		return "never"
	case s >= MaxDurationS:
		return "over 292 years"
	case s <= -MaxDurationS:
		return fmt.Sprintf("%.3g s", s)
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	case s < 7200:
		return fmt.Sprintf("%d min %02d s", int(s)/60, int(s)%60)
	default:
		return fmt.Sprintf("%d h %02d min", int(s)/3600, int(s)%3600/60)
	}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
