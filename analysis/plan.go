package analysis

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/vocab"
)

// PlanInputs is a scenario reduced to the model's numbers.
type PlanInputs struct {
	Scenario ScenarioSection // name, file, λ, C, k, Δ, τ_out, ... (Utilization is computed)
	// Layers are the retry layers, the client first.
	Layers []RetryLayer
	// ClientBackoffS[i] is the clients' mean delay before retry i+1, seconds.
	ClientBackoffS []float64
	// PodRatePerS is c; MaxReplicas is M; ScalabilityPeak is N_max (zero: unknown).
	PodRatePerS     float64
	MaxReplicas     int
	ScalabilityPeak int
	// Law is the service's latency law when the scenario declares it (or a
	// run fitted it); nil assumes the model's queue with no floor.
	Law *LatencyLaw
	// Scaler describes the autoscaler; nil for a fixed capacity.
	Scaler *ScalerInputs
	Gate   GateSpec
	// JudgeAfterS is how long after the spike's end the run's wait signal
	// can show a trap (zero or NaN: unknown; see Prediction.JudgeAfterS),
	// and JudgeAfterNote what it is made of.
	JudgeAfterS    float64
	JudgeAfterNote string
	// RecoveryHoldS is the recovery rule's hold, seconds: a run calls the
	// service back only after its success ratio held that long.
	RecoveryHoldS float64
	// JudgeAfterTracerTimeoutS is the tracers' timeout when they are the
	// run's best wait source (zero otherwise): a tracer comes back only
	// through the wait it meets, so the soonest judgement waits for the
	// predicted peak wait too, at most this long.
	JudgeAfterTracerTimeoutS float64
}

// ScalerInputs is an autoscaler as the scenario describes it.
type ScalerInputs struct {
	Signal    vocab.ScalerSignal
	Target    float64 // u*
	DeadTimeS float64 // τ
}

// amplification returns the client's factor, the per-layer factors and
// their product.
func (in PlanInputs) amplification() AmplificationSection {
	s := AmplificationSection{Client: 1, Predicted: 1, Layers: []LayerFactor{}}
	for i, l := range in.Layers {
		f := l.Amplification()
		if i == 0 {
			s.Client = f
		}
		s.Layers = append(s.Layers, LayerFactor{l, f})
		s.Predicted *= f
	}
	return s
}

// Plan predicts a trigger test from the closed forms of docs/model.md: is the
// spike a trigger, is the service vulnerable (A·ρ ≥ 1), how long should it
// take to come back, and what would make the test or the service better.
// The result is the document `trigger plan` prints.
func Plan(in PlanInputs) Document {
	sc := in.Scenario
	if sc.CapacityPerS > 0 {
		sc.Utilization = sc.DemandPerS / sc.CapacityPerS
	}
	sc.PatienceS, sc.PatienceFrom = Patience(sc.TimeoutS, in.Layers)
	// Every wait is compared with the shortest patience in front of the
	// service, which a layer's per-try timeout can make shorter than τ_out.
	law := planLaw(in)
	// Under the queue law a wait is compared with the patience less the
	// floor: the latency a client sees is the floor plus the wait.
	rho, k, spike, tau := sc.Utilization, sc.Multiplier, sc.SpikeS, law.WaitPatienceS(sc.PatienceS)
	amp := in.amplification()
	a := amp.Predicted
	trig := CheckTrigger(k, rho, spike, tau)
	if concurrency := lawApplies(in, law); concurrency {
		return planUnderConcurrency(in, sc, law, amp)
	}

	p := Prediction{
		TrapThreshold:        trapThreshold(a),
		AmplifiedUtilization: a * rho,
		PeakWaitS:            peakWait(a, rho, k, spike, tau),
		MinMultiplier:        Num(minMultiplier(rho, spike, tau)),
		MinSpikeS:            Num(MinSpike(k, rho, tau)),
		Recommendations:      []string{},
	}
	fault := sc.Fault
	if fault != nil {
		f := fault.Capacity
		trig = FaultTrigger(f, rho, fault.DurationS, tau)
		p.PeakWaitS = faultPeakWait(a, rho, f, fault.DurationS, tau)
		p.MinMultiplier, p.MinSpikeS = nil, nil
		p.MaxFaultCapacity = Num(MaxFaultCapacity(rho, fault.DurationS, tau))
		p.MinFaultS = Num(MinFault(f, rho, tau))
	}
	recovery := math.Inf(1)
	switch {
	case fault != nil && sc.AdmissionBoundS <= 0:
		recovery = faultRecovery(a, rho, fault.Capacity, fault.DurationS, tau)
		if !trig.Valid {
			// A fault that cannot trigger says nothing, as a spike that
			// cannot: no verdict to judge, so the gate cannot pass.
			p.Verdict = VerdictNoTrigger
		}
	case !trig.Valid:
		p.Verdict = VerdictNoTrigger
		recovery = RecoveryTime(a, rho, k, spike, tau)
	case sc.AdmissionBoundS > 0:
		// The queue, and so the wait, never exceeds b; from there the wait
		// falls at 1 − A·ρ while above τ_out (debt forms only if b ≥ τ_out).
		start := math.Min(p.PeakWaitS, sc.AdmissionBoundS)
		p.PeakWaitS = start
		if admissionBoundHolds(sc.AdmissionBoundS, tau) {
			recovery = start / (1 - rho)
		} else if !trapped(a, rho) {
			recovery = projectRecovery(0, start, a*rho-1, tau, rho)
		}
	case !trapped(a, rho):
		recovery = RecoveryTime(a, rho, k, spike, tau)
		if len(in.Layers) == 1 && !in.Layers[0].HasBudget && in.Layers[0].EffectiveRetryProbability() == 1 && len(in.ClientBackoffS) == 0 {
			p.RecoveryWithRetryLagS = Num(RecoveryTimeWithRetryLag(in.Layers[0].TriesInFailedState()-1, rho, k, spike, tau))
		}
	}
	if trig.Valid {
		p.Verdict = VerdictRecovered
		if math.IsInf(recovery, 1) {
			p.Verdict = VerdictTrapped
		}
	}
	if sc.AdmissionBoundS > 0 {
		p.AdmissionBound = &AdmissionPrediction{sc.AdmissionBoundS, tau, admissionBoundHolds(sc.AdmissionBoundS, tau)}
	}
	if in.Scaler != nil {
		v := scalerEscape(in.Scaler.Signal, in.Scaler.Target, a)
		sp := &ScalerPrediction{Signal: in.Scaler.Signal, Target: in.Scaler.Target, DeadTimeS: in.Scaler.DeadTimeS, ScalerVerdict: v}
		sp.TriggersWithinDeadTime = in.Scaler.DeadTimeS > 0 && CheckTrigger(k, rho, math.Min(spike, in.Scaler.DeadTimeS), tau).Valid
		if fault != nil {
			// Capacity ordered when the fault starts serves after the dead time.
			sp.TriggersWithinDeadTime = in.Scaler.DeadTimeS > 0 && FaultTrigger(fault.Capacity, rho, math.Min(fault.DurationS, in.Scaler.DeadTimeS), tau).Valid
		}
		p.Scaler = sp
		if trig.Valid && p.AdmissionBound == nil {
			// With an autoscaler the capacity is not fixed: the rules decide,
			// and the closed-form time no longer applies.
			recovery = math.NaN()
			p.Verdict = VerdictRecovered
			if !v.Escapes {
				p.Verdict, recovery = VerdictTrapped, math.Inf(1)
			}
		}
	}
	if in.MaxReplicas > 0 && in.PodRatePerS > 0 {
		floor := ceilingFloor(a, sc.DemandPerS, in.PodRatePerS)
		cp := &CeilingPrediction{MaxReplicas: in.MaxReplicas, CeilingFloorPods: floor, Escapes: float64(in.MaxReplicas) > floor,
			DrainPerS: ceilingDrainRate(in.PodRatePerS, in.MaxReplicas, floor)}
		if in.ScalabilityPeak > 0 {
			band := safeCeilingBand(a, sc.DemandPerS, in.PodRatePerS, in.ScalabilityPeak)
			cp.Band = &band
		}
		p.Ceiling = cp
		if trig.Valid && !cp.Escapes && p.AdmissionBound == nil {
			p.Verdict, recovery = VerdictTrapped, math.Inf(1)
		}
	}
	p.RecoveryS = Num(recovery)
	// The closed forms' recovery time is also their projection.
	c := Conclude(in.Gate, Evidence{Verdict: p.Verdict, RecoveryS: recovery, ProjectedRecoveryS: recovery, Amplification: a})
	p.Verdict = c.Verdict
	setJudgeAfter(in, &p)
	p.Recommendations = recommend(in, sc, law, trig, p, amp)

	return Document{
		Kind:          "plan",
		Scenario:      sc,
		LatencyLaw:    &law,
		Trigger:       trig,
		Amplification: amp,
		Prediction:    p,
		Verdict:       p.Verdict,
		RecoveryS:     p.RecoveryS,
		Gate:          c.Gate,
	}
}

// setJudgeAfter sets how soon after the spike a run can show a trap:
// the wait source's delay and samples (in.JudgeAfterS) and, for tracers,
// the wait a tracer sent at the spike's end comes back through (the
// predicted peak wait, at most the tracers' timeout).
func setJudgeAfter(in PlanInputs, p *Prediction) {
	if !(in.JudgeAfterS > 0) {
		return
	}
	need, note := in.JudgeAfterS, in.JudgeAfterNote
	if t := in.JudgeAfterTracerTimeoutS; t > 0 && p.PeakWaitS > 0 {
		w := math.Min(p.PeakWaitS, t)
		need += w
		note += fmt.Sprintf(", plus %s for a tracer sent at the spike's end to come back through the wait it meets (the predicted peak wait", FormatSeconds(w))
		if w < p.PeakWaitS {
			note += ", cut at the tracers' timeout"
		}
		note += ")"
	}
	p.JudgeAfterS, p.JudgeAfterNote = Num(need), note
}

// Phrases a recommendation carries when it predicts the trap and when it
// advises an admission bound: the referee drops the first when the run
// did not trap and the second when the run saw a bound at work
// (referee's advice), so the plan's texts and the run's filter share them.
const (
	AdviceTrapped  = "once triggered the"
	AdviceAddBound = "refuse work at the door with an admission bound"
)

// recommend puts the prediction into plain words for the scenario's author.
func recommend(in PlanInputs, sc ScenarioSection, law LatencyLaw, trig TriggerCheck, p Prediction, amp AmplificationSection) []string {
	rho, k, spike, tau := sc.Utilization, sc.Multiplier, sc.SpikeS, law.WaitPatienceS(sc.PatienceS)
	a := amp.Predicted
	var out []string
	tauName := "τ_out"
	if why := lawNotApplied(in, law); why != "" {
		out = append(out, why)
	}
	if law.FloorS > 0 {
		tauName = "the wait's patience"
		out = append(out, fmt.Sprintf("the service's latency floor L₀ = %s leaves a wait of %s before a client gives up (%s less the floor): the trigger, t0 and the recovery time use it",
			FormatSeconds(law.FloorS), FormatSeconds(tau), FormatSeconds(sc.PatienceS)))
	}
	if sc.PatienceS < sc.TimeoutS {
		if law.FloorS <= 0 {
			tauName = "the patience"
		}
		out = append(out, fmt.Sprintf("the service's patience is %s, %s, shorter than the clients' τ_out = %s: a wait past it fails every attempt (the layer answers an error before the client times out), so the trigger, t0, the admission bound and the recovery time use it",
			FormatSeconds(sc.PatienceS), sc.PatienceFrom, FormatSeconds(sc.TimeoutS)))
	}
	// Suggested sizes aim at twice the timeout, so that a capacity
	// underestimated by a fair margin still leaves a trigger.
	kFor := math.Ceil((1+2*tau/spike)/rho*10) / 10
	switch {
	case !trig.Valid && sc.Fault != nil:
		shortest := "no fault duration triggers at this capacity (λ ≤ C′)"
		if p.MinFaultS != nil {
			shortest = "or Δ > " + FormatSeconds(*p.MinFaultS) + " at this capacity"
		}
		out = append(out, fmt.Sprintf("this fault cannot trigger: (λ/C′ − 1)·Δ = %.2f s ≤ %s = %s; use a capacity C′/C < %.2f for Δ = %s, %s",
			trig.OverloadS, tauName, FormatSeconds(tau), Value(p.MaxFaultCapacity), FormatSeconds(sc.Fault.DurationS), shortest))
	case !trig.Valid && k*rho <= 1:
		out = append(out, fmt.Sprintf("this spike cannot trigger: k·ρ = %.2f ≤ 1, so the wait never grows, however long the spike; use k ≥ %s for Δ = %s%s",
			k*rho, trimFloat(kFor), FormatSeconds(spike), marginNote(rho, spike, tau)))
	case !trig.Valid:
		dFor := math.Ceil(2 * tau / (k*rho - 1))
		out = append(out, fmt.Sprintf("this spike cannot trigger: (k·ρ − 1)·Δ = %.2f s ≤ %s = %s; use k ≥ %s or Δ ≥ %s%s",
			trig.OverloadS, tauName, FormatSeconds(tau), trimFloat(kFor), FormatSeconds(dFor), marginNote(rho, spike, tau)))
	case trig.Margin < 1.5:
		// The trigger holds while the true capacity is below k·λ/(1 + τ/Δ).
		slack := k*rho/(1+tau/spike) - 1
		out = append(out, fmt.Sprintf("the trigger margin is only %.2f: if the real capacity is more than %.0f %% above %.0f/s the spike will not trigger; consider k ≥ %s%s",
			trig.Margin, 100*slack, sc.CapacityPerS, trimFloat(kFor), marginNote(rho, spike, tau)))
	}
	boundHolds := p.AdmissionBound != nil && p.AdmissionBound.Holds
	switch {
	case a*rho >= 1 && boundHolds:
		out = append(out, fmt.Sprintf("A·ρ = %.2f ≥ 1, but the admission bound b = %s < "+tauName+" keeps retry debt from forming: the excess is refused at the door, so clients see refusals instead of timeouts, and the service comes back",
			a*rho, FormatSeconds(p.AdmissionBound.BoundS)))
	case a*rho >= 1:
		out = append(out, fmt.Sprintf("A·ρ = %.2f ≥ 1: "+AdviceTrapped+" service stays failed. To escape, lower A below 1/ρ = %.2f (fewer retries, a retry budget β < %.2f), raise capacity above A·λ = %.0f/s, or "+AdviceAddBound+" b < "+tauName,
			a*rho, 1/rho, math.Max(0, 1/rho-1), a*sc.DemandPerS))
	case a*rho >= 0.8 && trig.Valid && !boundHolds:
		out = append(out, fmt.Sprintf("A·ρ = %.2f is close to 1: recovery time grows as 1/(1 − A·ρ) (critical slowing), so a little more load or one more retry layer traps the service", a*rho))
	}
	if p.AdmissionBound != nil && !p.AdmissionBound.Holds {
		out = append(out, fmt.Sprintf("the admission bound b = %s is not below %s = %s: admitted work can still outlive its client and build debt; use b < %s",
			FormatSeconds(p.AdmissionBound.BoundS), tauName, FormatSeconds(tau), tauName))
	}
	if p.Verdict == VerdictMetastable && p.RecoveryS != nil {
		out = append(out, fmt.Sprintf("predicted recovery %s exceeds the budget of %s: the gate would fail", FormatSeconds(*p.RecoveryS), FormatSeconds(in.Gate.MaxRecoveryS)))
	}
	if len(amp.Layers) > 1 {
		out = append(out, fmt.Sprintf("clients see A = %s but the layers behind them make it %s at the service: the run measures A_fail to check",
			trimFloat(amp.Client), trimFloat(a)))
	}
	if s := p.Scaler; s != nil {
		out = append(out, "autoscaler: "+s.Reason)
	}
	if c := p.Ceiling; c != nil && !c.Escapes {
		out = append(out, fmt.Sprintf("the replica ceiling %d is at or below M* = A·λ/c = %.1f: at its ceiling the failed service still cannot drain the debt", c.MaxReplicas, c.CeilingFloorPods))
	}
	if c := p.Ceiling; c != nil && c.Band != nil && c.Band.Empty {
		out = append(out, fmt.Sprintf("no safe replica ceiling exists: M* = %.1f is not below 0.8·N_max = %.1f", c.Band.FloorPods, c.Band.TopPods))
	}
	if r := Value(p.RecoveryS); trig.Valid && !math.IsNaN(r) && !math.IsInf(r, 1) && r+in.RecoveryHoldS > sc.ObserveS {
		out = append(out, fmt.Sprintf("observe = %s is shorter than the predicted recovery (%s) and the recovery hold (%s): a run ends before it can call the service back and judges by the wait's trend (metastable, with a projected recovery) or, if that cannot tell, ends inconclusive; use observe ≥ %s",
			FormatSeconds(sc.ObserveS), FormatSeconds(r), FormatSeconds(in.RecoveryHoldS), FormatSeconds(math.Ceil((r+in.RecoveryHoldS)*1.2/10)*10)))
	}
	if j := Value(p.JudgeAfterS); j > sc.ObserveS && trig.Valid {
		out = append(out, fmt.Sprintf("observe = %s is shorter than the %s after the spike a trap takes to show (%s): a service that does not recover within observe will end inconclusive; lengthen observe",
			FormatSeconds(sc.ObserveS), FormatSeconds(j), in.JudgeAfterNote))
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// trimFloat prints a number without trailing zeros: 6, 4.4, 0.25.
func trimFloat(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// marginNote says why a suggested size is larger than the smallest
// trigger the plan prints: it aims at an overload of twice the patience.
func marginNote(rho, spikeS, patienceS float64) string {
	return fmt.Sprintf(" (an overload of twice the patience, so that a capacity underestimated by a fair margin still triggers; the smallest trigger is k > %s)",
		trimFloat(math.Round(minMultiplier(rho, spikeS, patienceS)*10)/10))
}
