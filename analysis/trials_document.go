package analysis

import (
	"fmt"
	"math"
)

// TrialsDocument is trials.json: one trigger test repeated with different
// seeds (trigger run --trials N), each trial a run of its own in its own
// folder, and the odds over them (docs/model.md, "Trap probability").
// It is rewritten after every trial.
type TrialsDocument struct {
	// Kind is "trials".
	Kind           string         `json:"kind"`
	TriggerVersion string         `json:"trigger_version,omitempty"`
	Scenario       TrialsScenario `json:"scenario"`
	// TrialsAsked is N of --trials N; TrialsRun how many ran (a trial cut
	// short by a brake or an interrupt counts when its run wrote a
	// result).
	TrialsAsked int `json:"trials_asked"`
	TrialsRun   int `json:"trials_run"`
	// BaseSeed is the first trial's seed; trial i (from 1) runs with
	// BaseSeed + i − 1.
	BaseSeed uint64 `json:"base_seed"`
	// AllTrials is --all-trials: no early stop.
	AllTrials bool `json:"all_trials"`
	// RestS is the pause before every trial but the first, seconds.
	RestS     float64    `json:"rest_s"`
	StartedAt string     `json:"started_at"`
	EndedAt   string     `json:"ended_at,omitempty"`
	Trials    []TrialRow `json:"trials"`
	// Summary is the odds over the trials run; null before the first.
	Summary *TrialSummary `json:"summary"`
	// Model is the request-level model's P(trap) for the same test, the
	// trap_probability section plan and every trial's result.json show
	// (its Trapped null, with the reason, when the model does not describe
	// the test); ModelInsideMeasured says whether its value lies in the
	// measured P(trapped)'s 95 % interval, null before a trial or without
	// the model's figure.
	Model               *TrapProbability `json:"model"`
	ModelInsideMeasured *bool            `json:"model_inside_measured"`
	Gate                TrialsGate       `json:"gate"`
	// StoppedEarly is set when the series ended before TrialsAsked by the
	// sequential rule or because the gate could no longer pass;
	// StoppedReason says why the series ended, whatever ended it.
	StoppedEarly  bool   `json:"stopped_early"`
	StoppedReason string `json:"stopped_reason"`
	// Outcome is how the series ended: passed, failed, inconclusive (the
	// judging's), or stopped, interrupted, harness (what cut it short).
	Outcome string `json:"outcome"`
}

// Outcomes of a series of trials.
const (
	TrialsPassed       = "passed"
	TrialsFailed       = "failed"
	TrialsInconclusive = "inconclusive"
	TrialsStopped      = "stopped"
	TrialsInterrupted  = "interrupted"
	TrialsHarness      = "harness"
)

// TrialsScenario is the test repeated: the scenario's identity and the
// spike every trial drives.
type TrialsScenario struct {
	Name         string  `json:"name"`
	File         string  `json:"file,omitempty"`
	Hash         string  `json:"hash,omitempty"`
	Target       string  `json:"target,omitempty"`
	DemandPerS   float64 `json:"demand_per_s"`
	CapacityPerS float64 `json:"capacity_per_s"`
	Multiplier   float64 `json:"multiplier"`
	SpikeS       float64 `json:"spike_s"`
	TimeoutS     float64 `json:"timeout_s"`
}

// TrialRow is one trial: its run's folder (relative to the series'),
// verdict and figures, and its own gate as a single run judged it.
type TrialRow struct {
	// Index counts from 1.
	Index   int     `json:"index"`
	Seed    uint64  `json:"seed"`
	Folder  string  `json:"folder"`
	Verdict Verdict `json:"verdict"`
	// RecoveryS is seconds from the spike's end until the service
	// recovered; null when it did not. AFail is the measured A_fail; null
	// when not measured.
	RecoveryS *float64 `json:"recovery_s"`
	AFail     *float64 `json:"a_fail"`
	// Gate is the trial's gate as its result.json has it.
	Gate GateResult `json:"gate"`
	// RecoveryGate is the trial's recovery-budget criterion (gate
	// max_recovery), when it has one.
	RecoveryGate *GateCriterion `json:"recovery_gate,omitempty"`
	// Note says why the verdict is what it is, or what cut the trial short.
	Note string `json:"note,omitempty"`
}

// TrialsGate is the series' gate: max_trap_probability over the trials,
// and the other criteria of every trial's own gate.
type TrialsGate struct {
	// MaxTrapProbability is the gate's; null without one.
	MaxTrapProbability *float64 `json:"max_trap_probability"`
	Passed             bool     `json:"passed"`
	// Inconclusive: the trials could not tell (too few clean trials for
	// the bound, trials that could not tell); not passed, not failed.
	Inconclusive bool `json:"inconclusive"`
	// TrapProbability is P(trapped or metastable) over the trials that
	// triggered (a no-trigger trial says nothing about the trap and is no
	// clean trial; an inconclusive one claims nothing), its upper end
	// UpperBound; null without the gate or before a trial triggered.
	TrapProbability *Proportion `json:"trap_probability"`
	UpperBound      *float64    `json:"upper_bound"`
	// CleanTrialsNeeded is how many trials, none trapped, it takes to pass
	// (CleanTrialsFor); CannotPass says why it cannot pass with the trials
	// asked, when it cannot.
	CleanTrialsNeeded *int   `json:"clean_trials_needed"`
	CannotPass        string `json:"cannot_pass,omitempty"`
	// Failures are why it failed; Reasons why it could not tell.
	Failures []string `json:"failures"`
	Reasons  []string `json:"reasons,omitempty"`
}

// TrialsSpec is what a series is judged against.
type TrialsSpec struct {
	// MaxTrapProbability is gate.max_trap_probability; 0 for none.
	MaxTrapProbability float64
	// Asked is N of --trials N.
	Asked int
	// AllTrials disables the early stop.
	AllTrials bool
}

// TrialOutcomes are the rows' verdicts and recovery times, for
// SummarizeTrials.
func TrialOutcomes(rows []TrialRow) []TrialOutcome {
	out := make([]TrialOutcome, len(rows))
	for i, r := range rows {
		rec := math.NaN()
		if r.RecoveryS != nil {
			rec = *r.RecoveryS
		}
		out[i] = TrialOutcome{Verdict: r.Verdict, RecoveryS: rec}
	}
	return out
}

// seriesCriteria are a trial's gate criteria that max_trap_probability
// judges over the series instead: trap and recovery (a trapped or
// metastable trial counts against the bound, a recovered one for it),
// trigger and evidence (a no-trigger or inconclusive trial counts neither
// way), and the criterion itself, which no single trial judges.
var seriesCriteria = map[string]bool{"trap": true, "recovery": true, "trigger": true, "evidence": true, CriterionTrapProbability: true}

// trialFailures are the trial's gate criteria that failed and that the
// series does not judge otherwise: with max_trap_probability those
// outside seriesCriteria; without it every one but trigger and evidence
// (a trial that could not tell is no failure).
func trialFailures(r TrialRow, withProbability bool) []string {
	var out []string
	for _, c := range r.Gate.Criteria {
		if c.Passed || c.NotJudged || c.Name == "trigger" || c.Name == "evidence" {
			continue
		}
		if withProbability && seriesCriteria[c.Name] {
			continue
		}
		out = append(out, fmt.Sprintf("trial %d (seed %d): %s", r.Index, r.Seed, c.Detail))
	}
	return out
}

// told says whether a trial's verdict is a draw of P(trap): any but
// inconclusive (a no-trigger trial was not trapped), as SummarizeTrials
// and the model's odds count.
func told(v Verdict) bool { return v != VerdictInconclusive && v != "" }

// triggered says whether a trial pushed the wait past the timeout, and so
// tested the trap: trapped, metastable or recovered. A no-trigger trial
// is no clean trial for max_trap_probability, as a no-trigger run never
// passes a gate: the spike said nothing about the trap.
func triggered(v Verdict) bool {
	return v == VerdictTrapped || v == VerdictMetastable || v == VerdictRecovered
}

// trapDraws counts the trials that triggered and those of them trapped or
// metastable: max_trap_probability's count (metastable trials did not
// come back within the budget either).
func trapDraws(rows []TrialRow) (k, m int) {
	for _, r := range rows {
		if !triggered(r.Verdict) {
			continue
		}
		m++
		if r.Verdict == VerdictTrapped || r.Verdict == VerdictMetastable {
			k++
		}
	}
	return k, m
}

// JudgeTrials is the series' gate over the trials run. With
// max_trap_probability = p it passes when the Wilson upper end of
// P(trapped or metastable) over the trials that triggered is at most p
// (trapDraws) and no trial failed another criterion of its gate
// (max_amplification, a baseline); it fails on such a trial, or when the
// bound is over p with a trap seen; it is inconclusive when no trap was
// seen but too few trials told to bring the bound under p. Without p every
// trial must pass its own gate as a run would: one that failed fails the
// series, one that could not tell (no trigger, inconclusive) makes it
// inconclusive.
func JudgeTrials(spec TrialsSpec, rows []TrialRow) TrialsGate {
	g := TrialsGate{Failures: []string{}}
	p := spec.MaxTrapProbability
	withP := p > 0
	for _, r := range rows {
		g.Failures = append(g.Failures, trialFailures(r, withP)...)
	}
	if !withP {
		for _, r := range rows {
			if r.Verdict == VerdictNoTrigger || !told(r.Verdict) {
				g.Reasons = append(g.Reasons, fmt.Sprintf("trial %d (seed %d) could not tell: %s", r.Index, r.Seed, r.Verdict))
			}
		}
		if len(rows) == 0 {
			g.Reasons = append(g.Reasons, "no trial ran")
		}
		g.Passed = len(g.Failures) == 0 && len(g.Reasons) == 0
		g.Inconclusive = len(g.Failures) == 0 && len(g.Reasons) > 0
		return g
	}
	need := CleanTrialsFor(p)
	g.MaxTrapProbability, g.CleanTrialsNeeded = Num(p), &need
	if spec.Asked < need {
		g.CannotPass = fmt.Sprintf("cannot pass with %d trials: even all clean, P(trap)'s upper end would be %.1f %%, over %g; it takes %d", spec.Asked, 100*wilsonHi(0, spec.Asked), p, need)
	}
	k, m := trapDraws(rows)
	if m > 0 {
		prop := NewProportion(k, m)
		g.TrapProbability, g.UpperBound = &prop, Num(prop.Hi)
	}
	switch {
	case len(g.Failures) > 0:
	case m == 0:
		g.Reasons = append(g.Reasons, "no trial triggered: a spike that never pushed the wait past the timeout says nothing about the trap")
	case g.TrapProbability.Hi <= p:
		g.Passed = true
	case k > 0:
		g.Failures = append(g.Failures, fmt.Sprintf("P(trap) %d of %d: its upper end %.1f %% is over max_trap_probability %g", k, m, 100*g.TrapProbability.Hi, p))
	default:
		g.Reasons = append(g.Reasons, fmt.Sprintf("%d clean trials bound P(trap) by %.1f %%, over %g: it takes %d", m, 100*g.TrapProbability.Hi, p, need))
	}
	if nt := countVerdict(rows, VerdictNoTrigger); nt > 0 && !g.Passed {
		g.Reasons = append(g.Reasons, fmt.Sprintf("%d trials did not trigger and count neither way: a larger spike tests the trap", nt))
	}
	g.Inconclusive = !g.Passed && len(g.Failures) == 0
	return g
}

// countVerdict is how many rows have verdict v.
func countVerdict(rows []TrialRow, v Verdict) int {
	n := 0
	for _, r := range rows {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// wilsonHi is the Wilson 95 % upper end of k of n.
func wilsonHi(k, n int) float64 {
	_, hi := Wilson(k, n, z95)
	return hi
}

// TrialsStop says whether the series ends after the trials run, and why:
// when all the trials asked ran; else, unless spec.AllTrials, as soon as
// the outcome is known. With max_trap_probability = p that can pass with
// the trials asked, when it can no longer pass (a trial failed another
// criterion, or even the trials left all clean would leave the upper end
// over p). Otherwise (no such gate, or one the trials asked cannot pass)
// by the sequential rule: SequentialSide(trapped, told, 0.5) decided.
// early is set when the series ends before the trials asked.
func TrialsStop(spec TrialsSpec, rows []TrialRow) (stop, early bool, reason string) {
	n := len(rows)
	if n >= spec.Asked {
		return true, false, fmt.Sprintf("all %d trials asked ran", spec.Asked)
	}
	if spec.AllTrials || n == 0 {
		return false, false, ""
	}
	left := spec.Asked - n
	if p := spec.MaxTrapProbability; p > 0 && spec.Asked >= CleanTrialsFor(p) {
		var failed []string
		for _, r := range rows {
			failed = append(failed, trialFailures(r, true)...)
		}
		if len(failed) > 0 {
			return true, true, fmt.Sprintf("stopped early after %d of %d trials: the gate can no longer pass (%s)", n, spec.Asked, failed[0])
		}
		k, m := trapDraws(rows)
		if hi := wilsonHi(k, m+left); k > 0 && hi > p {
			return true, true, fmt.Sprintf("stopped early after %d of %d trials: the gate can no longer pass (%d trapped or metastable; even the %d trials left all clean would leave P(trap)'s upper end at %.1f %%, over %g)",
				n, spec.Asked, k, left, 100*hi, p)
		}
		return false, false, ""
	}
	trapped, m := 0, 0
	for _, r := range rows {
		if told(r.Verdict) {
			m++
			if r.Verdict == VerdictTrapped {
				trapped++
			}
		}
	}
	switch SequentialSide(trapped, m, 0.5) {
	case Below:
		return true, true, fmt.Sprintf("stopped early after %d of %d trials by the sequential rule: %d trapped of %d that told puts P(trap) below 50 %%", n, spec.Asked, trapped, m)
	case Above:
		return true, true, fmt.Sprintf("stopped early after %d of %d trials by the sequential rule: %d trapped of %d that told puts P(trap) above 50 %%", n, spec.Asked, trapped, m)
	}
	return false, false, ""
}

// ModelInside says whether the model's P(trap) lies in the measured
// P(trapped)'s interval; nil before any trial.
func ModelInside(model, measured Proportion) *bool {
	if measured.Of == 0 || math.IsNaN(model.P) {
		return nil
	}
	in := model.P >= measured.Lo && model.P <= measured.Hi
	return &in
}

// Judge fills the document's summary, model comparison and gate from its
// trials (spec from the document's TrialsAsked and AllTrials, with the
// gate's max_trap_probability), and the outcome the judging gives.
func (d *TrialsDocument) Judge(maxTrapProbability float64) {
	d.TrialsRun = len(d.Trials)
	d.Summary = nil
	if len(d.Trials) > 0 {
		s := SummarizeTrials(TrialOutcomes(d.Trials))
		d.Summary = &s
	}
	d.ModelInsideMeasured = nil
	if d.Model != nil && d.Model.Trapped != nil && d.Summary != nil {
		d.ModelInsideMeasured = ModelInside(*d.Model.Trapped, d.Summary.Trapped)
	}
	d.Gate = JudgeTrials(TrialsSpec{MaxTrapProbability: maxTrapProbability, Asked: d.TrialsAsked, AllTrials: d.AllTrials}, d.Trials)
	switch {
	case d.Gate.Passed:
		d.Outcome = TrialsPassed
	case d.Gate.Inconclusive:
		d.Outcome = TrialsInconclusive
	default:
		d.Outcome = TrialsFailed
	}
}
