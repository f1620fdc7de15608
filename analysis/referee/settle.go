package referee

import "github.com/trigger-test/trigger/analysis"

// Outcome is the referee's last word on a run.
type Outcome struct {
	// Verdict is the result document's verdict (inconclusive when the
	// run gives none) and Reason why.
	Verdict analysis.Verdict
	Reason  string
	// Inconclusive is why the run gives no verdict ("" when it does), and
	// Kind which kind of reason (KindNoVerdict, ...; a harness failure's
	// own kind as the runner gave it).
	Inconclusive, Kind string
}

// Settle ends the run once the load has stopped and every row is in: a
// run the referee had not ended is judged on what it has (End.Horizon), a
// harness failure leaves it inconclusive, and what could undo the verdict
// is checked (settleVerdict). Settling again returns the same outcome.
func (r *Referee) Settle(end analysis.JudgingEnd) Outcome {
	if !r.settled {
		r.settled, r.end = true, end
		if end.Inconclusive != "" && r.inconclusive == "" {
			r.inconclusive, r.kind = end.Inconclusive, end.InconclusiveKind
		}
		if end.Horizon != "" {
			r.horizon(end.Horizon, end.AtS)
		}
		r.settleVerdict()
		r.stage = stageOver
	}
	return r.outcome()
}

// settleVerdict checks the verdict against what could undo it once the
// run is over: failures that were the requests' own fault (client errors)
// leave it inconclusive; metrics missing for too much of the judged window
// leave it inconclusive too, unless the clients saw the service fail past
// its budget (their own counts need no Prometheus: then metastable).
func (r *Referee) settleVerdict() {
	if r.inconclusive != "" {
		return
	}
	if why, kind := r.clientFault(); why != "" && r.verdict != "" && r.verdict != analysis.VerdictNoTrigger {
		r.inconclusive, r.kind = why, kind
		return
	}
	why := r.metricsMissing()
	switch {
	case why == "":
	case r.observed != "":
		r.verdict, r.reason = analysis.VerdictMetastable, r.observed+"; the wait signals are not used: "+why
	default:
		r.inconclusive, r.kind = why, KindMetricsMissing
	}
}

// outcome is the verdict as the result document gives it.
func (r *Referee) outcome() Outcome {
	o := Outcome{Verdict: r.verdict, Reason: r.reason, Inconclusive: r.inconclusive, Kind: r.kind}
	switch {
	case r.inconclusive != "":
		o.Verdict, o.Reason = analysis.VerdictInconclusive, r.inconclusive
	case r.end.Interrupted && o.Verdict == "":
		o.Verdict, o.Reason = analysis.VerdictInconclusive, "interrupted before a verdict"
	case r.end.Stopped != "" && o.Verdict == "":
		o.Verdict, o.Reason = analysis.VerdictInconclusive, "stopped before a verdict: "+r.end.Stopped
	case o.Verdict == "":
		o.Verdict, o.Reason = analysis.VerdictInconclusive, "no verdict was reached"
	}
	return o
}

// Status is what the referee can say while the run goes, for a progress
// line: the verdict so far (metastable at least once the clients saw the
// outage), the wait source judged and its newest sample, the blind ones.
type Status struct {
	Verdict    analysis.Verdict
	Note       string
	WaitSource analysis.WaitSource
	WaitS      float64
	Blind      []analysis.WaitSource
}

// Status is the referee's word so far.
func (r *Referee) Status() Status {
	st := Status{Verdict: r.verdict, Note: r.reason, WaitS: nan()}
	if st.Verdict == "" && r.observed != "" {
		st.Verdict, st.Note = analysis.VerdictMetastable, r.observed
	}
	if src := r.choice.series.Source; src != "" {
		st.WaitS, st.WaitSource = r.waits.latest(src), src
	}
	for _, b := range r.choice.blind {
		st.Blind = append(st.Blind, b.Source)
	}
	return st
}
