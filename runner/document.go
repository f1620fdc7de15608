package runner

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// document assembles the run's result document: the plan's sections, what
// was measured, the verdict and the gate.
func (r *run) document() analysis.Document {
	doc := r.plan
	doc.Kind = "run"
	obs := &analysis.Observation{Source: "run", EndS: r.elapsed(), WaitSource: r.wait.source, VerdictReason: r.reason,
		Interrupted: r.interrupted, Inconclusive: r.inconclusive}
	doc.Observation = obs
	verdict := r.verdict
	switch {
	case r.inconclusive != "":
		verdict, obs.VerdictReason = analysis.VerdictNoTrigger, "inconclusive: "+r.inconclusive
	case r.interrupted && verdict == "":
		verdict, obs.VerdictReason = analysis.VerdictNoTrigger, "interrupted before a verdict"
	case verdict == "":
		verdict, obs.VerdictReason = analysis.VerdictNoTrigger, "no verdict was reached"
	}
	var totals analysis.MeasuredSecond
	var lostFirst float64
	for _, row := range r.rows {
		totals.Timeouts += row.Timeouts
		totals.Rejected += row.Rejected
		totals.Failed += row.Failed
		totals.Dropped += row.Dropped
		totals.Refused += row.Refused
		if !math.IsNaN(row.AbandonedPerS) {
			totals.AbandonedPerS += row.AbandonedPerS
		}
		if !math.IsNaN(r.spikeStart) && row.TS >= r.spikeStart {
			lostFirst += row.FirstDone - row.FirstOK
		}
	}
	obs.TimedOut, obs.Refused, obs.FailedRequests = analysis.Num(totals.Timeouts), analysis.Num(totals.Rejected), analysis.Num(totals.Failed)
	obs.Dropped, obs.RefusedInFlight = analysis.Num(totals.Dropped), analysis.Num(totals.Refused)
	if r.mets.has("abandoned") {
		obs.Abandoned = analysis.Num(totals.AbandonedPerS)
	}
	obs.PeakWaitS, obs.FinalWaitS = analysis.Num(r.wait.peak), analysis.Num(r.wait.latest())
	if math.IsNaN(r.spikeStart) {
		doc.Verdict, doc.RecoveryS = verdict, nil
		doc.Gate = analysis.EvaluateGate(r.inputs.Gate, verdict, math.NaN(), math.NaN(), math.NaN())
		return doc
	}
	obs.SpikeStartS, obs.SpikeEndS = analysis.Num(r.spikeStart), analysis.Num(r.spikeEnd)
	obs.JudgedS = analysis.Num(r.judgedAt - r.spikeEnd)
	obs.T0S = analysis.Num(r.t0())

	facts := r.facts(r.elapsed())
	in := analysis.Infer(r.rows, facts, r.wait.t, r.wait.w)
	if in.BaselinePerS > 0 {
		obs.LostWorkS = analysis.Num(lostFirst / in.BaselinePerS)
	}
	obs.BaselinePerS, obs.CapacityPerS, obs.CapacitySource, obs.Utilization = analysis.Num(in.BaselinePerS), analysis.Num(in.CapacityPerS), in.CapacitySource, analysis.Num(in.Utilization)
	obs.AmplificationClient, obs.AmplificationFailed = analysis.Num(in.AClient), analysis.Num(in.AFail)
	obs.AmplificationFromSlope, obs.AmplificationFromRecovery = analysis.Num(in.AFromSlope), analysis.Num(in.AFromRecovery)
	obs.PredictedRecoveryS = analysis.Num(in.PredictedRecoveryS)
	obs.FailedFromS, obs.FailedToS = analysis.Num(in.FailedFromS), analysis.Num(in.FailedToS)
	obs.WaitSlope = analysis.Num(in.WaitSlope)
	if r.trend.Trend.N > 0 {
		obs.WaitSlope = analysis.Num(r.trend.Trend.Slope)
		obs.ProjectedRecoveryS = analysis.Num(r.trend.ProjectedS)
	}
	obs.Estimates = analysis.EstimateTable(r.plan, in, r.recoveryS)
	doc.Amplification.Measured = analysis.Num(in.AFail)
	if !math.IsNaN(in.AFail) && !math.IsNaN(in.AClient) {
		doc.Amplification.Hidden = analysis.Num(in.Hidden)
	}
	if st := r.onTrap; st != nil {
		obs.OnTrap = &analysis.OnTrapResult{Action: r.s.OnTrap.Action, AtS: st.at - r.spikeEnd, RecoveryS: analysis.Num(st.recovered), Error: st.err}
	}

	recovery := r.recoveryS
	if math.IsNaN(recovery) {
		recovery = math.Inf(1)
	}
	verdict = analysis.ApplyBudget(verdict, recovery, r.s.Gate.MaxRecovery.Seconds())
	if verdict == analysis.VerdictMetastable && obs.ProjectedRecoveryS == nil && !math.IsInf(recovery, 0) {
		obs.ProjectedRecoveryS = analysis.Num(recovery)
	}
	doc.Verdict = verdict
	doc.RecoveryS = analysis.Num(r.recoveryS)
	// The gate judges the amplification the service experienced. When it
	// could not be measured (no ingress query, or no settled failed state),
	// the scenario's own belief stands in: the clients' count alone would
	// hide exactly the layers the criterion is there to catch.
	a := in.AFail
	if math.IsNaN(a) {
		a = r.plan.Amplification.Predicted
	}
	doc.Gate = analysis.EvaluateGate(r.inputs.Gate, verdict, recovery, analysis.Value(obs.ProjectedRecoveryS), a)
	obs.Findings = findings(doc, r.rows, in, r.recoveryS)
	if gaps := r.mets.gaps(); len(gaps) > 0 {
		obs.Findings = append(obs.Findings, "Prometheus returned no value for "+strings.Join(gaps, ", ")+": the estimates that use them are incomplete")
	}
	if math.IsNaN(in.AFail) && r.inputs.Gate.MaxAmplification > 0 {
		obs.Findings = append(obs.Findings, fmt.Sprintf("A_fail was not measured; the amplification gate used the scenario's predicted A = %.2f", r.plan.Amplification.Predicted))
	}
	return doc
}
