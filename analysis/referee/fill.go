package referee

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/vocab"
)

func nan() float64 { return math.NaN() }

// Fill writes what the referee judged into doc, a copy of the plan's
// document, after Settle: the observation (totals, the wait judged, the
// estimates, the findings), the amplification measured, the verdict, the
// recovery and the gate, and the record a replay needs (doc.Judging). What
// only the runner knows (the wall clock, a fleet, a fault's commands, a
// stop condition, the driver's latency by phase) is kept from
// doc.Observation when it has one.
func (r *Referee) Fill(doc *analysis.Document) {
	o := r.outcome()
	doc.Kind = "run"
	obs := &analysis.Observation{Source: "run", EndS: r.end.AtS, VerdictReason: o.Reason,
		Interrupted: r.end.Interrupted, Inconclusive: r.inconclusive}
	old := doc.Observation
	if old != nil {
		obs.StartedAt, obs.Fault, obs.StoppedBy = old.StartedAt, old.Fault, old.StoppedBy
		// Measured by the driver, not from the rows: a replay keeps it.
		obs.LatencyByPhase = old.LatencyByPhase
	}
	doc.Observation = obs
	doc.Judging = r.Record()
	verdict := o.Verdict
	r.fillTotals(obs)
	for _, q := range r.sigs {
		obs.Signals = append(obs.Signals, q)
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
	clearMeasured(&doc.Amplification)
	if math.IsNaN(r.spikeStart) {
		c := analysis.Conclude(r.gate, analysis.Evidence{Verdict: verdict, RecoveryS: math.NaN(), ProjectedRecoveryS: math.NaN(), Amplification: math.NaN()})
		doc.Verdict, doc.RecoveryS, doc.Gate = c.Verdict, nil, c.Gate
		return
	}
	obs.SpikeStartS, obs.SpikeEndS = analysis.Num(r.spikeStart), analysis.Num(r.spikeEnd)
	obs.JudgedS = analysis.Num(r.judgedAt - r.spikeEnd)

	if verdict == analysis.VerdictNoTrigger {
		// Nothing failed: the wait's trend measured no failed state, so
		// neither A from it nor its slope is reported.
		j = analysis.Judgement{}
	}
	in := r.infer(r.end.AtS, j)
	law := r.law()
	doc.LatencyLaw = &law
	obs.T0S = analysis.Num(in.T0S)
	patience, patienceFrom := r.patience(in)
	obs.PatienceS, obs.PatienceFrom = analysis.Num(patience), patienceFrom
	if in.BaselinePerS > 0 {
		obs.LostWorkS = analysis.Num(r.lostFirst() / in.BaselinePerS)
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
		obs.OnTrap = &analysis.OnTrapResult{Action: r.cfg.OnTrap.Action, AtS: st.at - r.spikeEnd, RecoveryS: analysis.Num(st.recovered)}
		if r.cfg.OnTrap.Action == vocab.TrapRate.String() {
			obs.OnTrap.HeldTrend = heldTrend(st.held)
		}
		if old != nil && old.OnTrap != nil {
			obs.OnTrap.Error = old.OnTrap.Error // a command's failure: the runner's
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
	c := analysis.Conclude(r.gate, analysis.Evidence{Verdict: verdict, RecoveryS: recovery,
		ProjectedRecoveryS: analysis.Value(obs.ProjectedRecoveryS), Amplification: in.A.Value, AmplificationFrom: in.AFrom})
	obs.ProjectedRecoveryS = analysis.Num(c.ProjectedRecoveryS)
	doc.Verdict, doc.RecoveryS, doc.Gate = c.Verdict, analysis.Num(r.recoveryS), c.Gate
	if verdict == analysis.VerdictNoTrigger {
		// Nothing failed, so nothing recovered: no recovery time.
		doc.RecoveryS = nil
	}
	obs.Findings = findings(*doc, r.rows, in, r.recoveryS, r.layerNote(in))
	obs.SustainedBy = r.sustaining(doc.Verdict, in, law)
	withholdSlopeA(obs)
	if why := r.planContradicted(doc); why != "" {
		obs.Findings = append(obs.Findings, why)
	}
	obs.Advice = r.advice(doc, in)
	if p := analysis.Value(obs.PredictedRecoveryS); doc.Verdict == analysis.VerdictTrapped && obs.PredictedRecoveryS != nil && !math.IsInf(p, 1) {
		// The formula's queue recovers; this service did not. The figure
		// is withheld and the contradiction said once, in words.
		obs.Findings = append(obs.Findings, fmt.Sprintf("the model's recovery formula at %s predicts a recovery in %s, yet the service is trapped: its queue (FIFO, serving abandoned work, capacity fixed) is not what holds this service down, so no predicted recovery is reported",
			obs.PredictedRecoveryFrom, analysis.FormatSeconds(math.Max(0, p))))
		obs.PredictedRecoveryS, obs.PredictedRecoveryFrom = nil, ""
		for i := range obs.Estimates {
			if obs.Estimates[i].Name == "recovery_s" {
				obs.Estimates[i].Note = "trapped: the formula's prediction is withheld (see the findings)"
			}
		}
	}
	if why := r.retriesUnsettled(); why != "" {
		obs.Findings = append(obs.Findings, why)
	}
	if gaps := r.gaps(); len(gaps) > 0 {
		obs.Findings = append(obs.Findings, "Prometheus returned no value for "+strings.Join(gaps, ", ")+": the estimates that use them are incomplete")
	}
}

// retriesUnsettled says that the run's rows end before the clients'
// retry streams had settled after the spike (RetrySettleS after its end),
// so that what it measured after the spike still carries the spike's
// retries; "" when they had settled.
func (r *Referee) retriesUnsettled() string {
	if len(r.rows) == 0 || math.IsNaN(r.spikeEnd) || r.cfg.RetrySettleS <= 0 {
		return ""
	}
	end := r.rows[len(r.rows)-1].TS + 1
	if end >= r.spikeEnd+r.cfg.RetrySettleS {
		return ""
	}
	return fmt.Sprintf("the run's last second ended %s after the spike, before the clients' retries settled (about %s after it): its rates after the spike still carry the spike's retries",
		analysis.FormatSeconds(math.Max(0, end-r.spikeEnd)), analysis.FormatSeconds(r.cfg.RetrySettleS))
}

// lostFirst is the first attempts that failed from the spike's start on.
func (r *Referee) lostFirst() float64 {
	var lost float64
	for _, row := range r.rows {
		if row.TS >= r.spikeStart {
			lost += row.FirstFailed()
		}
	}
	return lost
}

// fillTotals sums the run's rows into the observation's totals, and each
// request's of a mix.
func (r *Referee) fillTotals(obs *analysis.Observation) {
	var t analysis.TimelineRow
	for _, row := range r.rows {
		t.Timeouts += row.Timeouts
		t.Rejected += row.Rejected
		t.Failed += row.Failed
		t.Dropped += row.Dropped
		t.Refused += row.Refused
		t.FirstTimeouts += row.FirstTimeouts
		t.FirstErrors += row.FirstErrors
		t.FirstConnect += row.FirstConnect
		t.FirstAuth += analysis.ZeroIfUnknown(row.FirstAuth)
		t.FirstDone += row.FirstDone
		t.FirstOK += row.FirstOK
		if !math.IsNaN(row.AbandonedPerS) {
			t.AbandonedPerS += row.AbandonedPerS
		}
	}
	obs.TimedOut, obs.Refused, obs.FailedRequests = analysis.Num(t.Timeouts), analysis.Num(t.Rejected), analysis.Num(t.Failed)
	obs.FirstFailed, obs.FirstTimedOut = analysis.Num(t.FirstFailed()), analysis.Num(t.FirstTimeouts)
	obs.FirstErrors, obs.FirstConnect = analysis.Num(t.FirstErrors), analysis.Num(t.FirstConnect)
	obs.Dropped, obs.RefusedInFlight = analysis.Num(t.Dropped), analysis.Num(t.Refused)
	if t.FirstAuth > 0 {
		obs.FirstAuth = analysis.Num(t.FirstAuth)
	}
	obs.Requests = r.requestResults()
	if _, ok := r.signal("abandoned"); ok {
		obs.Abandoned = analysis.Num(t.AbandonedPerS)
	}
}

// clearMeasured empties what a run measures of A, so that a document
// filled again (a replay) keeps nothing of an earlier filling.
func clearMeasured(a *analysis.AmplificationSection) {
	a.Measured, a.MeasuredLo, a.MeasuredHi, a.MeasuredNote = nil, nil, nil, ""
	a.MeasuredAtLeast, a.MeasuredAtMost = nil, nil
	a.Hidden, a.HiddenNote, a.Standing, a.LostBeforeCounter = nil, "", nil, nil
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
	if in.LostBeforeCounter > 0 {
		a.LostBeforeCounter = analysis.Num(in.LostBeforeCounter)
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
func (r *Referee) layerNote(in infer.Inference) string {
	if g, ok := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS()); ok {
		return g.describe(in.Hidden.Value)
	}
	return ""
}

// requestResults is what each request of the target's mix got over the
// run, summed from the timeline's rows (so a fleet's agents' seconds
// count too); nil for a single request.
func (r *Referee) requestResults() []analysis.RequestResult {
	mix := r.plan.Scenario.Requests
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

// withholdSlopeA withholds A from the wait's slope when the run found
// lost capacity holding the service down: the slope's law, the wait
// changing at (A·λ − C)/C with C fixed, does not hold where the service
// serves less the fuller it is, so the slope measures the capacity lost,
// not A (a figure whose model's preconditions did not hold is null with
// the reason). The estimate's row says why.
func withholdSlopeA(obs *analysis.Observation) {
	if obs.SustainedBy == nil || obs.SustainedBy.Effect != analysis.SustainedByLostCapacity || obs.AmplificationFromSlope == nil {
		return
	}
	obs.AmplificationFromSlope = nil
	for i := range obs.Estimates {
		if e := &obs.Estimates[i]; e.Name == "amplification_from_slope" {
			e.Measured, e.MeasuredLo, e.MeasuredHi = nil, nil, nil
			e.Note = "not reported: lost capacity holds this service down, so the wait's slope measures the capacity lost under the backlog, not A·ρ − 1"
		}
	}
}
