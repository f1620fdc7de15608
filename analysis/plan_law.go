package analysis

import (
	"fmt"
	"math"
)

// assumedLawNote says what plan assumes when the scenario names no law.
const assumedLawNote = "none declared (service.latency_law, latency_floor): the model's own queue; a run fits the service's law from its data"

// planLaw is the latency law plan predicts with: the scenario's, at its
// capacity, or the queue assumed.
func planLaw(in PlanInputs) LatencyLaw {
	c := in.Scenario.CapacityPerS
	if in.Law == nil {
		return AssumedLaw(c, assumedLawNote)
	}
	law := *in.Law
	if !(law.CapacityPerS > 0) {
		law.CapacityPerS = c
	}
	return law
}

// lawApplies reports whether plan predicts with the concurrency law's own
// forms: a spike on a fixed capacity. A fault, an admission bound or an
// autoscaler are the queue's forms (the concurrency law's are not written
// for them); the recommendations then say so.
func lawApplies(in PlanInputs, law LatencyLaw) bool {
	sc := in.Scenario
	return !law.Queue() && sc.Fault == nil && sc.AdmissionBoundS <= 0 && in.Scaler == nil && in.MaxReplicas == 0
}

// planUnderConcurrency is Plan for a service whose latency grows with the
// requests in flight (docs/model.md, "Latency laws and what sustains a
// trap"): the spike triggers when the fluid dN/dt = λ(t) − X(N) passes
// N_τ, and the failed state holds when A·λ ≥ C_τ, the throughput at the
// patience. The queue's recovery formula does not apply: a recovery is
// predicted, not timed.
func planUnderConcurrency(in PlanInputs, sc ScenarioSection, law LatencyLaw, amp AmplificationSection) Document {
	lambda, k, spike, patience := sc.DemandPerS, sc.Multiplier, sc.SpikeS, sc.PatienceS
	a := amp.Predicted
	trig := CheckTriggerUnder(law, lambda, k, spike, patience)
	cTau := law.CapacityAtTimeout(patience)
	p := Prediction{
		TrapThreshold:         trapThreshold(a),
		AmplifiedUtilization:  a * lambda / cTau,
		PeakWaitS:             trig.OverloadS,
		MinMultiplier:         Num(MinMultiplierUnder(law, lambda, spike, patience)),
		MinSpikeS:             Num(MinSpikeUnder(law, lambda, k, patience)),
		CapacityAtTimeoutPerS: Num(cTau),
		Recommendations:       []string{},
	}
	recovery := math.NaN()
	switch {
	case !trig.Valid:
		p.Verdict = VerdictNoTrigger
	case TrapHoldsUnder(law, a, lambda, patience):
		p.Verdict, recovery = VerdictTrapped, math.Inf(1)
	default:
		p.Verdict = VerdictRecovered
	}
	p.RecoveryS = Num(recovery)
	c := Conclude(in.Gate, Evidence{Verdict: p.Verdict, RecoveryS: recovery, ProjectedRecoveryS: recovery, Amplification: a})
	p.Verdict = c.Verdict
	setJudgeAfter(in, &p)
	p.Recommendations = recommendUnderConcurrency(in, sc, law, trig, p, amp)
	return Document{Kind: "plan", Scenario: sc, LatencyLaw: &law, Trigger: trig, Amplification: amp, Prediction: p,
		Verdict: p.Verdict, RecoveryS: p.RecoveryS, Gate: c.Gate}
}

// recommendUnderConcurrency puts a prediction under the concurrency law
// into plain words.
func recommendUnderConcurrency(in PlanInputs, sc ScenarioSection, law LatencyLaw, trig TriggerCheck, p Prediction, amp AmplificationSection) []string {
	lambda, patience := sc.DemandPerS, sc.PatienceS
	a := amp.Predicted
	cTau := law.CapacityAtTimeout(patience)
	out := []string{fmt.Sprintf("the service's latency grows with every request in flight (L = L₀ + N/C, L₀ = %s, C = %.0f/s): its latency reaches the patience of %s at N_τ = %.0f in flight, where it serves only C_τ = %.1f/s; the trigger and the trap are judged against those, not k·ρ against C",
		FormatSeconds(law.FloorS), law.CapacityPerS, FormatSeconds(patience), law.InFlightAtTimeout(patience), cTau)}
	switch {
	case !trig.Valid && trig.Margin >= 0.8:
		out = append(out, fmt.Sprintf("this spike brings the latency above the floor to %s of the %s that times clients out (%.0f %%): near the boundary, where random arrivals and the latency's spread trigger it in some runs and not in others; use k ≥ %s or Δ ≥ %s for a trigger in the law's mean",
			FormatSeconds(trig.OverloadS), FormatSeconds(trig.TimeoutS), 100*trig.Margin, trimFloat(math.Ceil(Value(p.MinMultiplier)*1.1*10)/10), FormatSeconds(math.Ceil(Value(p.MinSpikeS)*1.2))))
	case !trig.Valid:
		out = append(out, fmt.Sprintf("this spike cannot trigger: it brings the latency above the floor to %s, below the %s that times clients out; the smallest trigger is k > %s for Δ = %s",
			FormatSeconds(trig.OverloadS), FormatSeconds(trig.TimeoutS), trimFloat(math.Round(Value(p.MinMultiplier)*10)/10), FormatSeconds(sc.SpikeS)))
	}
	if TrapHoldsUnder(law, a, lambda, patience) {
		out = append(out, fmt.Sprintf("A·λ = %.1f/s ≥ C_τ = %.1f/s: "+AdviceTrapped+" work arriving keeps the latency past the patience and the service stays failed. To escape, lower A below C_τ/λ = %.2f, or "+AdviceAddBound+" that caps the requests in flight below N_τ = %.0f",
			a*lambda, cTau, cTau/lambda, law.InFlightAtTimeout(patience)))
	} else if trig.Valid {
		out = append(out, fmt.Sprintf("A·λ = %.1f/s < C_τ = %.1f/s: the service comes back once the spike ends; the queue's recovery-time formula does not hold for this law, so no recovery time is predicted", a*lambda, cTau))
	}
	if len(amp.Layers) > 1 {
		out = append(out, fmt.Sprintf("clients see A = %s but the layers behind them make it %s at the service: the run measures A_fail to check", trimFloat(amp.Client), trimFloat(a)))
	}
	if j := Value(p.JudgeAfterS); j > sc.ObserveS && trig.Valid {
		out = append(out, fmt.Sprintf("observe = %s is shorter than the %s after the spike a trap takes to show (%s): a service that does not recover within observe will end inconclusive; lengthen observe",
			FormatSeconds(sc.ObserveS), FormatSeconds(j), in.JudgeAfterNote))
	}
	return out
}

// lawNotApplied says, for a scenario that declares the concurrency law
// but whose prediction uses the queue's forms (a fault, an admission
// bound, an autoscaler, a replica ceiling), that the law was not used.
func lawNotApplied(in PlanInputs, law LatencyLaw) string {
	if law.Queue() || lawApplies(in, law) {
		return ""
	}
	return "the scenario declares latency that grows with concurrency, but a fault, an admission bound, an autoscaler or a replica ceiling is predicted with the queue's forms only: the figures below are the queue's"
}
