package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
)

// observe judges the run after the spike (docs/model.md, "What a trigger
// test measures", item 3): recovered once the first-attempt success ratio
// is back above its threshold and held; trapped or metastable as soon as
// the settled wait's trend shows it, or the clients saw the service fail
// past its budget; else at the horizon.
func (r *Referee) observe(now float64, d *Decision) {
	if at, ok := infer.FindRecovery(r.rows, r.recoverySearchFrom(), r.cfg.SuccessRatio, r.cfg.HoldS); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		if r.triggered() {
			r.verdict = analysis.VerdictRecovered
			r.reason = fmt.Sprintf("the first-attempt success ratio was back above %.3g and held for %s", r.cfg.SuccessRatio, analysis.FormatSeconds(r.cfg.HoldS))
		} else {
			r.verdict = analysis.VerdictNoTrigger
			r.reason = "no first attempt failed: the spike never pushed the wait past the patience in front of the service"
		}
		d.Over = true
		return
	}
	if r.verdict == "" {
		r.judgement = r.judge(now, false, d)
		if j := r.judgement; j.Verdict != "" && r.triggered() {
			r.judgedAt = now
			r.verdict, r.reason = j.Verdict, j.Reason
			if r.observed != "" {
				r.reason += "; " + r.observed
			}
			d.Notes = append(d.Notes, fmt.Sprintf("judged %s %.1f s after the spike (the %s wait settles %.1f s after it): %s", j.Verdict, now-r.spikeEnd, j.Source, j.DelayS, j.Reason))
		}
	}
	if r.verdict == "" && r.observed == "" {
		if why := r.observedOutage(false); why != "" {
			r.observed = why
			d.Notes = append(d.Notes, "metastable at least: "+why)
		}
	}
	if r.verdict != "" {
		// Judged: keep the failed state a few seconds more if A_fail has
		// not been measured yet, then act or stop.
		if now >= r.measuredBy() {
			r.endObservation(d)
		}
		return
	}
	if r.observed != "" && r.choice.series.Source == "" && now >= r.measuredBy() {
		// No wait signal can say more than the clients have seen.
		r.verdict, r.reason, r.judgedAt = analysis.VerdictMetastable, r.observed+"; "+r.noSignalReason(), now
		r.endObservation(d)
		return
	}
	if now >= r.spikeEnd+r.cfg.ObserveS {
		r.horizon("the observation horizon was reached", now)
		r.endObservation(d)
	}
}

// endObservation ends the observation: with the service still failed
// (trapped, or seen failing past its budget) the scenario's on_trap
// action starts, and the run goes on watching it; otherwise the run is
// over.
func (r *Referee) endObservation(d *Decision) {
	failed := r.verdict == analysis.VerdictTrapped || r.verdict == analysis.VerdictMetastable && r.observed != ""
	if failed && r.cfg.OnTrap != nil && r.inconclusive == "" {
		d.StartOnTrap = true
		return
	}
	d.Over = true
}

// noSignalReason says why no wait signal could show a trend: every one the
// scenario offers is blind, or it offers none.
func (r *Referee) noSignalReason() string {
	if r.choice.reason != "" {
		return "no wait signal can tell a trap from a slow recovery: " + r.choice.reason
	}
	return "no wait signal can tell a trap from a slow recovery"
}

// triggered reports whether a second after the spike began failed more
// first attempts than the recovery rule allows, whatever the failure.
func (r *Referee) triggered() bool {
	return infer.Triggered(r.rows, r.spikeStart, r.cfg.SuccessRatio)
}

// recoverySearchFrom is where the search for a recovery starts: one client
// timeout after the spike's end. Outcomes are counted when attempts
// complete, so the last spike attempts that met a long wait show their
// timeouts only then; before, the seconds can look healthy.
func (r *Referee) recoverySearchFrom() float64 {
	return r.spikeEnd + r.timeoutS()
}

// judge applies the one verdict rule (analysis.Judge) to the best wait
// source that has settled data, now seconds into the run; final when no
// more data will come. d, when not nil, gets the notes of sources found
// blind.
func (r *Referee) judge(now float64, final bool, d *Decision) analysis.Judgement {
	in := r.infer(now, analysis.Judgement{})
	patience, _ := r.patience(in)
	blind := r.waits.blindness(r.rows, r.spikeStart, r.spikeEnd, patience, r.cfg.TracerTimeoutS, r.cfg.SuccessRatio, now)
	r.noteBlind(blind, d)
	r.choice = r.waits.choose(r.spikeEnd, blind)
	j := analysis.Judge(analysis.JudgeInput{
		Wait:        r.choice.series,
		SpikeEndS:   r.spikeEnd,
		FailedToS:   r.OnTrapAt(),
		HorizonS:    r.spikeEnd + r.cfg.ObserveS,
		PatienceS:   patience,
		Utilization: in.Utilization,
		BudgetS:     r.cfg.Gate.MaxRecoveryS,
		Final:       final,
	}, analysis.MeasuredJudgePolicy)
	if j.Verdict != "" {
		if why := r.notFailing(j, patience, now); why != "" {
			j.Verdict = ""
			j.Reason = "the wait's trend alone is no failed state: " + why + " (" + j.Reason + ")"
		}
	}
	return j
}

// failedSeconds counts the seconds ending in (fromS, toS] with completed
// first attempts of the service's (not the driver's own), and how many of
// them failed beyond the rule (TimelineRow.Failing).
func (r *Referee) failedSeconds(fromS, toS float64) (failed, known int) {
	for _, row := range r.rows {
		if end := row.TS + 1; end <= fromS || end > toS || row.ByDriver() || row.FirstDone == 0 {
			continue
		}
		known++
		if row.Failing(r.cfg.SuccessRatio) {
			failed++
		}
	}
	return failed, known
}

// notFailing says why the service is not failing now although the wait's
// trend says trapped or metastable ("" when it is failing): a trap needs
// the service failing, whatever law its latency follows (docs/model.md,
// "What a trigger test measures", item 3). Of the latest three seconds
// before now with completed first attempts of the service's, at least
// half must fail beyond the rule; and the wait, where
// its fit ends, must be above the patience in front of the service. A
// wait that rises below the patience while first attempts succeed is a
// slower service, not a trapped one.
func (r *Referee) notFailing(j analysis.Judgement, patienceS, now float64) string {
	if failed, seen := r.failedSeconds(now-3, now); seen > 0 && 2*failed < seen {
		return fmt.Sprintf("first attempts are succeeding (%d of the latest %d seconds failed beyond the rule)", failed, seen)
	}
	if at := j.FitToS; !math.IsNaN(at) {
		if w := j.Trend.At(at); w < patienceS {
			return fmt.Sprintf("the %s wait is %s, below the patience of %s", j.Source, analysis.FormatSeconds(math.Max(0, w)), analysis.FormatSeconds(patienceS))
		}
	}
	return ""
}

// noteBlind notes each wait source the first time it is found blind.
func (r *Referee) noteBlind(blind map[analysis.WaitSource]string, d *Decision) {
	for _, src := range analysis.WaitSources {
		if why := blind[src]; why != "" && !r.blindLogged[src] {
			if r.blindLogged == nil {
				r.blindLogged = map[analysis.WaitSource]bool{}
			}
			r.blindLogged[src] = true
			if d != nil {
				d.Notes = append(d.Notes, fmt.Sprintf("the %s wait signal is blind, and not used: %s", src, why))
			}
		}
	}
}

// horizon ends a run that did not recover, now seconds into it: trapped or
// metastable when the settled wait's trend shows it (or the clients saw
// the outage), inconclusive when the signals cannot tell.
func (r *Referee) horizon(why string, now float64) {
	if r.verdict != "" || r.inconclusive != "" || math.IsNaN(r.spikeEnd) {
		if math.IsNaN(r.spikeEnd) && r.inconclusive == "" {
			r.inconclusive, r.kind = why+" before the spike", KindNoVerdict
		}
		return
	}
	if at, ok := infer.FindRecovery(r.rows, r.recoverySearchFrom(), r.cfg.SuccessRatio, r.cfg.HoldS); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		r.verdict, r.reason = analysis.VerdictRecovered, "recovered by the end of the run"
		return
	}
	if !r.triggered() {
		r.verdict, r.reason = analysis.VerdictNoTrigger, why+"; no first attempt failed"
		return
	}
	r.judgement = r.judge(now, true, nil)
	r.judgedAt = now
	if why, kind := r.clientFault(); why != "" {
		r.inconclusive, r.kind = why, kind
		return
	}
	if r.observed == "" {
		r.observed = r.observedOutage(true)
	}
	switch j := r.judgement; {
	case j.Verdict != "":
		r.verdict, r.reason = j.Verdict, why+"; "+j.Reason
		if r.observed != "" {
			r.reason += "; " + r.observed
		}
	case r.observed != "":
		r.verdict, r.reason = analysis.VerdictMetastable, why+"; "+r.observed+"; "+j.Reason
	default:
		r.inconclusive, r.kind = why+" while the service was still failing, and "+j.Reason, KindNoVerdict
	}
}

// measuredBy is when the failed state after the spike has been watched
// long enough to measure A_fail with an interval (SettledAfterS after the
// spike); zero without an ingress query (then A_fail cannot be measured).
func (r *Referee) measuredBy() float64 {
	if _, ok := r.signal("ingress"); !ok {
		return 0
	}
	return r.spikeEnd + r.SettledAfterS()
}

// minFailedWindow is how long, in seconds, the settled failed state must be
// watched at the least for A_fail to be measured before a judged run stops.
const minFailedWindow = 3.0

// SettledAfterS is how long after the spike's end the failed state can be
// measured: the retry streams settled, the ingress window past the spike,
// and three scrapes of it (at least minFailedWindow seconds).
func (r *Referee) SettledAfterS() float64 {
	qi, _ := r.signal("ingress")
	return r.cfg.RetrySettleS + r.ingressLag() + math.Max(minFailedWindow, 3*qi.ScrapeIntervalS)
}

// signal returns the named query's signal as it stands.
func (r *Referee) signal(name string) (analysis.SignalInfo, bool) {
	for _, q := range r.sigs {
		if q.Name == name {
			return q, true
		}
	}
	return analysis.SignalInfo{}, false
}

// ingressLag is how far back the ingress and first-attempts queries look,
// seconds (range + offset + scrape interval; zero without them).
func (r *Referee) ingressLag() float64 {
	lag := 0.0
	for _, name := range []string{"ingress", "first_attempts"} {
		if q, ok := r.signal(name); ok {
			lag = math.Max(lag, q.LagS())
		}
	}
	return lag
}
