package runner

import (
	"math"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// document assembles the run's result document: the plan's sections, what
// was measured, the verdict and the gate.
func (r *run) document() analysis.Document {
	doc := r.plan
	doc.Kind = "run"
	obs := &analysis.Observation{Source: "run", EndS: r.elapsed(), VerdictReason: r.reason,
		Interrupted: r.interrupted, Inconclusive: r.inconclusive}
	doc.Observation = obs
	if r.fleet != nil {
		doc.Fleet = r.fleet.Info()
	}
	if !r.start.IsZero() {
		obs.StartedAt = r.start.UTC().Format(time.RFC3339Nano)
		if r.fault != nil {
			obs.Fault = &analysis.FaultOutcome{Name: r.spec.Fault.Name, StartedS: analysis.Num(r.faultStartS), StoppedS: analysis.Num(r.faultStopS),
				Restored: r.fault.restored(), Error: r.fault.failure()}
		}
	}
	if ev := r.stopped; ev != nil {
		obs.StoppedBy = &analysis.StopRecord{By: ev.name, Reason: ev.reason}
		if !r.start.IsZero() {
			obs.StoppedBy.AtS = math.Max(0, ev.at.Sub(r.start).Seconds())
		}
	}
	verdict := r.verdict
	switch {
	case r.inconclusive != "":
		verdict, obs.VerdictReason = analysis.VerdictInconclusive, r.inconclusive
	case r.interrupted && verdict == "":
		verdict, obs.VerdictReason = analysis.VerdictInconclusive, "interrupted before a verdict"
	case r.stopped != nil && verdict == "":
		verdict, obs.VerdictReason = analysis.VerdictInconclusive, "stopped before a verdict: "+r.stopped.reason
	case verdict == "":
		verdict, obs.VerdictReason = analysis.VerdictInconclusive, "no verdict was reached"
	}
	var totals analysis.TimelineRow
	var lostFirst float64
	for _, row := range r.rows {
		totals.Timeouts += row.Timeouts
		totals.Rejected += row.Rejected
		totals.Failed += row.Failed
		totals.Dropped += row.Dropped
		totals.Refused += row.Refused
		totals.FirstTimeouts += row.FirstTimeouts
		totals.FirstErrors += row.FirstErrors
		totals.FirstConnect += row.FirstConnect
		totals.FirstAuth += analysis.ZeroIfUnknown(row.FirstAuth)
		totals.FirstDone += row.FirstDone
		totals.FirstOK += row.FirstOK
		if !math.IsNaN(row.AbandonedPerS) {
			totals.AbandonedPerS += row.AbandonedPerS
		}
		if !math.IsNaN(r.spikeStart) && row.TS >= r.spikeStart {
			lostFirst += row.FirstFailed()
		}
	}
	obs.TimedOut, obs.Refused, obs.FailedRequests = analysis.Num(totals.Timeouts), analysis.Num(totals.Rejected), analysis.Num(totals.Failed)
	obs.FirstFailed, obs.FirstTimedOut = analysis.Num(totals.FirstFailed()), analysis.Num(totals.FirstTimeouts)
	obs.FirstErrors, obs.FirstConnect = analysis.Num(totals.FirstErrors), analysis.Num(totals.FirstConnect)
	obs.Dropped, obs.RefusedInFlight = analysis.Num(totals.Dropped), analysis.Num(totals.Refused)
	if totals.FirstAuth > 0 {
		obs.FirstAuth = analysis.Num(totals.FirstAuth)
	}
	obs.Requests = r.requestResults()
	if r.mets.has("abandoned") {
		obs.Abandoned = analysis.Num(totals.AbandonedPerS)
	}
	for _, q := range r.mets.signals() {
		obs.Signals = append(obs.Signals, q.Info(r.retrySettle))
	}
	// The wait the verdict was judged on, whatever its source.
	j := r.judgement
	if src := r.choice.series.Source; src != "" {
		obs.WaitSource, obs.WaitSourceReason = src, r.choice.reason
		obs.WaitDelayS = analysis.Num(r.choice.series.DelayS)
		obs.PeakWaitS, obs.FinalWaitS = analysis.Num(r.waits.peak(src)), analysis.Num(r.waits.latest(src))
	} else if r.choice.reason != "" {
		obs.WaitSourceReason = r.choice.reason
	}
	obs.BlindSignals, obs.Observed = r.choice.blind, r.observed
	if math.IsNaN(r.spikeStart) {
		c := analysis.Conclude(r.inputs.Gate, analysis.Evidence{Verdict: verdict, RecoveryS: math.NaN(), ProjectedRecoveryS: math.NaN(), Amplification: math.NaN()})
		doc.Verdict, doc.RecoveryS, doc.Gate = c.Verdict, nil, c.Gate
		return doc
	}
	obs.SpikeStartS, obs.SpikeEndS = analysis.Num(r.spikeStart), analysis.Num(r.spikeEnd)
	obs.JudgedS = analysis.Num(r.judgedAt - r.spikeEnd)

	if verdict == analysis.VerdictNoTrigger {
		// Nothing failed: the wait's trend measured no failed state, so
		// neither A from it nor its slope is reported.
		j = analysis.Judgement{}
	}
	in := r.infer(r.elapsed(), j)
	obs.T0S = analysis.Num(in.T0S)
	patience, patienceFrom := r.patience(in)
	obs.PatienceS, obs.PatienceFrom = analysis.Num(patience), patienceFrom
	if in.BaselinePerS > 0 {
		obs.LostWorkS = analysis.Num(lostFirst / in.BaselinePerS)
	}
	obs.BaselinePerS, obs.CapacityPerS, obs.CapacitySource, obs.Utilization = analysis.Num(in.BaselinePerS), analysis.Num(in.CapacityPerS), in.CapacitySource, analysis.Num(in.Utilization)
	obs.AmplificationClient, obs.AmplificationFailed = analysis.Num(in.AClient.Value), analysis.Num(in.AFail.Value)
	obs.AmplificationFromSlope, obs.AmplificationFromRecovery = analysis.Num(in.AFromSlope.Value), analysis.Num(in.AFromRecovery.Value)
	obs.PredictedRecoveryS = analysis.Num(in.PredictedRecoveryS.Value)
	if obs.PredictedRecoveryS != nil {
		obs.PredictedRecoveryFrom = infer.PredictedAt(in)
	}
	obs.FailedFromS, obs.FailedToS = analysis.Num(in.FailedFromS), analysis.Num(in.FailedToS)
	// One slope: the judged trend's, on settled samples only.
	obs.WaitSlope, obs.WaitSlopeLo, obs.WaitSlopeHi = analysis.Num(in.WaitSlope.Value), analysis.Num(in.WaitSlope.Lo), analysis.Num(in.WaitSlope.Hi)
	if j.Trend.N >= analysis.MeasuredJudgePolicy.MinPoints {
		obs.ProjectedRecoveryS = analysis.Num(j.ProjectedS)
	}
	obs.Estimates = infer.EstimateTable(r.plan, in, r.recoveryS, obs.WaitSource)
	amplificationSection(&doc.Amplification, in)
	if st := r.onTrap; st != nil {
		obs.OnTrap = &analysis.OnTrapResult{Action: r.spec.OnTrap.Action.String(), AtS: st.at - r.spikeEnd, RecoveryS: analysis.Num(st.recovered), Error: st.err}
		if r.spec.OnTrap.Action == vocab.TrapRate {
			obs.OnTrap.HeldTrend = heldTrend(st.held)
		}
	}

	// A run that found no recovery did not recover.
	recovery := r.recoveryS
	if math.IsNaN(recovery) {
		recovery = math.Inf(1)
	}
	// The gate judges the amplification the service experienced, measured:
	// when it could not be (no ingress query, no settled failed state,
	// Prometheus gone), the criterion fails rather than pass on the
	// scenario's belief.
	c := analysis.Conclude(r.inputs.Gate, analysis.Evidence{Verdict: verdict, RecoveryS: recovery,
		ProjectedRecoveryS: analysis.Value(obs.ProjectedRecoveryS), Amplification: in.A.Value, AmplificationFrom: in.AFrom})
	obs.ProjectedRecoveryS = analysis.Num(c.ProjectedRecoveryS)
	doc.Verdict, doc.RecoveryS, doc.Gate = c.Verdict, analysis.Num(r.recoveryS), c.Gate
	obs.Findings = findings(doc, r.rows, in, r.recoveryS, r.layerNote(in))
	if gaps := r.mets.gaps(); len(gaps) > 0 {
		obs.Findings = append(obs.Findings, "Prometheus returned no value for "+strings.Join(gaps, ", ")+": the estimates that use them are incomplete")
	}
	return doc
}

// amplificationSection records what the run measured of A: A_fail when it
// is a measurement, else why not with the bound the counters gave; the
// hidden factor when it may be claimed; the A the run stands by.
func amplificationSection(a *analysis.AmplificationSection, in infer.Inference) {
	a.Measured = analysis.Num(in.AFail.Value)
	a.MeasuredLo, a.MeasuredHi = analysis.Num(in.AFail.Lo), analysis.Num(in.AFail.Hi)
	if !in.AFail.Known() {
		a.MeasuredNote = in.AFailNote
		a.MeasuredAtLeast, a.MeasuredAtMost = analysis.Num(in.AFailAtLeast), analysis.Num(in.AFailAtMost)
	}
	a.Hidden = analysis.Num(in.Hidden.Value)
	if a.Hidden == nil {
		a.HiddenNote = in.HiddenNote
	}
	if in.A.Known() && !math.IsInf(in.A.Value, 0) {
		a.Standing = &analysis.StandingAmplification{Value: in.A.Value, Lo: analysis.Num(in.A.Lo), Hi: analysis.Num(in.A.Hi), From: in.AFrom, Note: in.ANote}
	}
}

// layerNote describes a layer that gives up before the clients do, when
// the run saw one; "" otherwise.
func (r *run) layerNote(in infer.Inference) string {
	if g, ok := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS()); ok {
		return g.describe(in.Hidden.Value)
	}
	return ""
}

// requestNames are the names of a mix's requests, in its order; nil for
// fewer than two.
func requestNames(mix []loadgen.Request) []string {
	if len(mix) < 2 {
		return nil
	}
	out := make([]string, len(mix))
	for i, q := range mix {
		out[i] = q.Name
	}
	return out
}

// requestResults is what each request of the target's mix got over the
// run, summed from the timeline's rows (so a fleet's agents' seconds
// count too); nil for a single request.
func (r *run) requestResults() []analysis.RequestResult {
	mix := r.test.Driver.Mix
	if len(mix) < 2 {
		return nil
	}
	var weights, sent float64
	out := make([]analysis.RequestResult, len(mix))
	for i, q := range mix {
		weights += q.Weight
		out[i] = analysis.RequestResult{Name: q.Name, Weight: q.Weight}
	}
	for _, row := range r.rows {
		for i, q := range row.Requests {
			if i >= len(out) {
				break
			}
			o := &out[i]
			o.FirstSent += q.First
			o.FirstOK += q.FirstOK
			o.FirstTimeouts += q.FirstTimeouts
			o.FirstErrors += q.FirstErrors
			o.FirstConnect += q.FirstConnect
			o.FirstClientErrors += q.FirstClientErrors
			o.FirstOther += q.FirstOther
			sent += q.First
		}
	}
	for i := range out {
		o := &out[i]
		o.ExpectedShare = o.Weight / weights
		done := o.FirstOK + o.FirstTimeouts + o.FirstErrors + o.FirstConnect + o.FirstOther
		o.FirstFailed = done - o.FirstOK
		o.SuccessRatio = math.NaN()
		if done > 0 {
			o.SuccessRatio = o.FirstOK / done
		}
		if sent > 0 {
			o.Share = o.FirstSent / sent
		}
	}
	return out
}
