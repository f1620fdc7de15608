package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
)

// facts are what Infer needs besides the timeline, now seconds into the
// run, with the run's judgement of the wait.
func (r *Referee) facts(now float64, j analysis.Judgement) infer.RunFacts {
	to := now
	if !math.IsNaN(r.recoveryS) {
		to = r.spikeEnd + r.recoveryS
	}
	baselineTo := math.Inf(1)
	if r.onTrap != nil {
		to = math.Min(to, r.onTrap.at)
		baselineTo = r.onTrap.at
	}
	qi, _ := r.signal("ingress")
	s := r.plan.Scenario
	return infer.RunFacts{
		BaselineToS:           baselineTo,
		SpikeStartS:           r.spikeStart,
		SpikeEndS:             r.spikeEnd,
		TimeoutS:              r.timeoutS(),
		PatienceS:             s.PatienceS,
		Multiplier:            s.Multiplier,
		FaultCapacity:         r.faultCapacity(),
		SuccessRatio:          r.cfg.SuccessRatio,
		RetrySettleS:          r.cfg.RetrySettleS,
		IngressLagS:           r.ingressLag(),
		IngressRangeS:         qi.RangeS,
		IngressResolutionS:    qi.ScrapeIntervalS,
		FailedToS:             to,
		RecoveryS:             r.triggeredRecovery(),
		ScenarioCapacityPerS:  s.CapacityPerS,
		ScenarioDemandPerS:    s.DemandPerS,
		Cohorts:               r.end.Cohorts,
		Wait:                  j,
		SlopeNotFailed:        r.slopeNotFailed(j),
		LawNotQueue:           lawNotQueue(r.law()),
		Trapped:               r.verdict == analysis.VerdictTrapped,
		ClientAmplification:   r.plan.Amplification.Client,
		ScenarioAmplification: r.plan.Amplification.Predicted,
	}
}

// slopeNotFailed says why the wait's trend j was not fitted in a failed
// state ("" when it was, or there is no fit): over the seconds it was
// fitted on, most first attempts succeeded, or the wait stayed under the
// patience in front of the service (the plan's, or the latency of a layer
// seen giving up first). A = (slope + 1)/ρ holds only in a failed state;
// elsewhere the slope measures a slower service, not A (a flat wait of
// 0.01 s gave "A = 1/ρ").
func (r *Referee) slopeNotFailed(j analysis.Judgement) string {
	if j.Trend.N < 2 || math.IsNaN(j.FitFromS) || math.IsNaN(j.FitToS) {
		return ""
	}
	if failed, known := r.failedSeconds(j.FitFromS-1, j.FitToS); known > 0 && 2*failed < known {
		return fmt.Sprintf("most first attempts succeeded over the seconds it was fitted on: %d of %d failed beyond the rule", failed, known)
	}
	patience := r.plan.Scenario.PatienceS
	if g, ok := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS()); ok {
		patience = math.Min(patience, g.latencyS)
	}
	if w := math.Max(j.Trend.At(j.FitFromS), j.Trend.At(j.FitToS)); w < patience {
		return fmt.Sprintf("the %s wait stayed under the patience of %s (at most %s)", j.Source, analysis.FormatSeconds(patience), analysis.FormatSeconds(math.Max(0, w)))
	}
	return ""
}

// triggeredRecovery is the recovery time of a service the spike pushed
// into a failed state; NaN for a run without a trigger (nothing failed,
// so nothing recovered, and no A can be read from the time it took).
func (r *Referee) triggeredRecovery() float64 {
	if r.verdict == analysis.VerdictNoTrigger {
		return math.NaN()
	}
	return r.recoveryS
}

// infer estimates the model's parameters from the run so far, with the
// shortest patience the run knows of.
func (r *Referee) infer(now float64, j analysis.Judgement) infer.Inference {
	f := r.facts(now, j)
	in := infer.Infer(r.rows, f)
	if p, _ := r.patience(in); p < f.PatienceS {
		f.PatienceS = p
		in = infer.Infer(r.rows, f)
	}
	return in
}

// patience is the shortest patience in front of the service: the plan's
// (τ_out, or a declared layer's per-try timeout), or shorter when the run
// saw a layer give up first (layerGivesUp), with what sets it.
func (r *Referee) patience(in infer.Inference) (float64, string) {
	p, by := r.plan.Scenario.PatienceS, r.plan.Scenario.PatienceFrom
	if math.IsNaN(r.spikeEnd) {
		return p, by
	}
	if g, ok := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS()); ok {
		if m := g.patience(in.Hidden.Value); m < p {
			return m, g.patienceFrom(in.Hidden.Value)
		}
	}
	return p, by
}

// faultCapacity is C′/C of the run's fault; 0 without one.
func (r *Referee) faultCapacity() float64 {
	if f := r.plan.Scenario.Fault; f != nil {
		return f.Capacity
	}
	return 0
}
