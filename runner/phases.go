package runner

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
)

// step moves the run through its phases after each collection and reports
// whether the run is over.
func (r *run) step() bool {
	now := r.elapsed()
	switch r.phase {
	case analysis.PhaseWarmup:
		if why := r.credentialsRefused(); why != "" {
			r.inconclusive, r.inconclusiveErr = why, ErrCredentialsRefused
			return true
		}
		if now < r.warmupEnd() {
			break
		}
		if why, refused := r.baselineFailing(); why != "" {
			r.inconclusive, r.targetRefused = why, refused
			return true
		}
		r.startSpike()
	case analysis.PhaseSpike:
		if r.fault != nil && r.faultStep(now) {
			return true
		}
		if now >= r.spikeEnd && (r.fault == nil || !math.IsNaN(r.faultStopS)) {
			r.setPhase(analysis.PhaseObserve)
		}
	case analysis.PhaseObserve:
		if r.fault != nil && r.faultStep(now) {
			return true
		}
		if r.observe(now) {
			return true
		}
	case analysis.PhaseOnTrap:
		if r.watchOnTrap(now) {
			return true
		}
	}
	r.progress()
	return false
}

// warmupEnd is when the warmup ends, seconds into the run: the scenario's
// warmup, but never before the first attempts' outcomes can be known (one
// client timeout after the first second, and a second more): against a
// target that never answers, a warmup no longer than the timeout saw no
// failure, and the spike went to a dead target.
func (r *run) warmupEnd() float64 {
	return math.Max(r.spec.Warmup.Seconds(), 1+r.timeoutS()+1)
}

// baselineFailing says why the service is already failing at baseline, or
// "" when it is healthy: more attempts failed during warmup (the first
// second, connection set-up, aside) than the recovery threshold allows.
// refused is set when the failures are all connections the target refused:
// then the target is down, not overloaded.
func (r *run) baselineFailing() (why string, refused bool) {
	var failures, connect, done float64
	for _, row := range r.rows {
		if row.TS < 1 || row.ByDriver() {
			continue
		}
		failures += row.Failures()
		connect += row.Connect
		done += row.OK + row.Failures()
	}
	var sent, firstDone float64
	for _, row := range r.rows {
		sent += row.Sent
		firstDone += row.FirstDone
	}
	if sent > 0 && firstDone == 0 {
		return fmt.Sprintf("none of the %.0f first attempts sent during the warmup completed, not even by timing out: the driver cannot measure this target", sent), false
	}
	if failures == 0 || failures <= (1-r.spec.Recovery.SuccessRatio)*done {
		return "", false
	}
	if connect == failures {
		return fmt.Sprintf("every connection to the target failed before any response during the warmup (%.0f attempts to %s: refused, or accepted and then reset or closed): is it up, and does it answer HTTP there?", connect, r.spec.TargetURL), true
	}
	return fmt.Sprintf("%.0f of %.0f attempts failed during the warmup at %.0f/s, before any spike; a trigger test needs a healthy baseline",
		failures, done, r.inputs.Scenario.DemandPerS), false
}

// startSpike replaces the rest of the schedule by the spike and the
// observation at baseline, and records when the spike started.
func (r *run) startSpike() {
	baseline, spike := r.inputs.Scenario.DemandPerS, r.spec.SpikeDuration
	peak := r.inputs.Scenario.Multiplier * baseline
	at := r.drv.Replan([]loadgen.Stage{
		loadgen.Constant(spike, peak),
		loadgen.Constant(r.spec.AfterSpike()+convert.ScheduleSlack, baseline),
	})
	r.spikeStart = at.Seconds()
	r.spikeEnd = r.spikeStart + spike.Seconds()
	r.setPhase(analysis.PhaseSpike)
	if r.fault != nil {
		go func() {
			err := r.fault.start()
			r.faultStarted <- faultStartResult{at: r.elapsed(), err: err}
		}()
		return
	}
	r.opts.logf("spike: %.0f/s for %s", peak, spike)
}

// observe judges the run after the spike: recovered once the first-attempt
// success ratio is back above its threshold and held; trapped or
// metastable as soon as the settled wait's trend shows it; else at the
// horizon.
func (r *run) observe(now float64) bool {
	rec := r.spec.Recovery
	if at, ok := infer.FindRecovery(r.rows, r.recoverySearchFrom(), rec.SuccessRatio, rec.Hold.Seconds()); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		if r.triggered() {
			r.verdict = analysis.VerdictRecovered
			r.reason = fmt.Sprintf("the first-attempt success ratio was back above %.3g and held for %s", rec.SuccessRatio, rec.Hold)
		} else {
			r.verdict = analysis.VerdictNoTrigger
			r.reason = "no first attempt failed: the spike never pushed the wait past the patience in front of the service"
		}
		return true
	}
	if r.verdict == "" {
		r.judgement = r.judge(now, false)
		if j := r.judgement; j.Verdict != "" && r.triggered() {
			r.judgedAt = now
			r.verdict, r.reason = j.Verdict, j.Reason
			if r.observed != "" {
				r.reason += "; " + r.observed
			}
			r.opts.logf("judged %s %.1f s after the spike (the %s wait settles %.1f s after it): %s", j.Verdict, now-r.spikeEnd, j.Source, j.DelayS, j.Reason)
		}
	}
	if r.verdict == "" && r.observed == "" {
		if why := r.observedOutage(false); why != "" {
			r.observed = why
			r.opts.logf("metastable at least: %s", why)
		}
	}
	if r.verdict != "" {
		// Judged: keep the failed state a few seconds more if A_fail has
		// not been measured yet, then act or stop.
		if now < r.measuredBy() {
			return false
		}
		return r.endObservation(now)
	}
	if r.observed != "" && r.choice.series.Source == "" && now >= r.measuredBy() {
		// No wait signal can say more than the clients have seen.
		r.verdict, r.reason, r.judgedAt = analysis.VerdictMetastable, r.observed+"; "+r.noSignalReason(), now
		return r.endObservation(now)
	}
	if now >= r.spikeEnd+r.spec.Observe.Seconds() {
		r.horizon("the observation horizon was reached")
		return r.endObservation(now)
	}
	return false
}

// endObservation ends the observation: with the service still failed
// (trapped, or seen failing past its budget) the scenario's on_trap
// action starts, and the run goes on watching it; otherwise the run is
// over (true).
func (r *run) endObservation(now float64) bool {
	failed := r.verdict == analysis.VerdictTrapped || r.verdict == analysis.VerdictMetastable && r.observed != ""
	if failed && r.spec.OnTrap != nil && r.inconclusive == "" {
		r.startOnTrap(now)
		return false
	}
	return true
}

// noSignalReason says why no wait signal could show a trend: every one the
// scenario offers is blind, or it offers none.
func (r *run) noSignalReason() string {
	if r.choice.reason != "" {
		return "no wait signal can tell a trap from a slow recovery: " + r.choice.reason
	}
	return "no wait signal can tell a trap from a slow recovery"
}

// triggered reports whether a second after the spike began failed more
// first attempts than the recovery threshold allows, whatever the failure.
func (r *run) triggered() bool {
	return infer.Triggered(r.rows, r.spikeStart, r.spec.Recovery.SuccessRatio)
}

// recoverySearchFrom is where the search for a recovery starts: one client
// timeout after the spike's end. Outcomes are counted when attempts
// complete, so the last spike attempts that met a long wait show their
// timeouts only then; before, the seconds can look healthy.
func (r *run) recoverySearchFrom() float64 {
	return r.spikeEnd + r.timeoutS()
}

// judge applies the one verdict rule (analysis.Judge) to the best wait
// source that has settled data, now seconds into the run; final when no
// more data will come.
func (r *run) judge(now float64, final bool) analysis.Judgement {
	in := r.infer(now, analysis.Judgement{})
	patience, _ := r.patience(in)
	blind := r.waits.blindness(r.rows, r.spikeStart, r.spikeEnd, patience, r.tracerTimeout(), r.spec.Recovery.SuccessRatio, now)
	r.noteBlind(blind)
	r.choice = r.waits.choose(r.spikeEnd, blind)
	to := math.NaN()
	if r.onTrap != nil {
		to = r.onTrap.at
	}
	return analysis.Judge(analysis.JudgeInput{
		Wait:        r.choice.series,
		SpikeEndS:   r.spikeEnd,
		FailedToS:   to,
		HorizonS:    r.spikeEnd + r.spec.Observe.Seconds(),
		PatienceS:   patience,
		Utilization: in.Utilization,
		BudgetS:     r.inputs.Gate.MaxRecoveryS,
		Final:       final,
	}, analysis.MeasuredJudgePolicy)
}

// timeoutS is τ_out, the clients' attempt timeout, seconds: the plan's,
// the one value the run reads it from.
func (r *run) timeoutS() float64 { return r.inputs.Scenario.TimeoutS }

// tracerTimeout is the tracers' timeout, seconds (0 without tracers).
func (r *run) tracerTimeout() float64 {
	if t := r.test.Driver.Tracers; t != nil {
		return t.Timeout.Seconds()
	}
	return 0
}

// noteBlind logs each wait source the first time it is found blind.
func (r *run) noteBlind(blind map[analysis.WaitSource]string) {
	for _, src := range analysis.WaitSources {
		if why := blind[src]; why != "" && !r.blindLogged[src] {
			if r.blindLogged == nil {
				r.blindLogged = map[analysis.WaitSource]bool{}
			}
			r.blindLogged[src] = true
			r.opts.logf("the %s wait signal is blind, and not used: %s", src, why)
		}
	}
}

// horizon ends a run that did not recover: trapped or metastable when the
// settled wait's trend shows it, inconclusive when the signals cannot tell.
func (r *run) horizon(why string) {
	if r.verdict != "" || r.inconclusive != "" || math.IsNaN(r.spikeEnd) {
		if math.IsNaN(r.spikeEnd) && r.inconclusive == "" {
			r.inconclusive, r.inconclusiveErr = why+" before the spike", ErrNoVerdict
		}
		return
	}
	if at, ok := infer.FindRecovery(r.rows, r.recoverySearchFrom(), r.spec.Recovery.SuccessRatio, r.spec.Recovery.Hold.Seconds()); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		r.verdict, r.reason = analysis.VerdictRecovered, "recovered by the end of the run"
		return
	}
	if !r.triggered() {
		r.verdict, r.reason = analysis.VerdictNoTrigger, why+"; no first attempt failed"
		return
	}
	now := r.elapsed()
	r.judgement = r.judge(now, true)
	r.judgedAt = now
	if why, err := r.clientFault(); why != "" {
		r.inconclusive, r.inconclusiveErr = why, err
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
		r.inconclusive, r.inconclusiveErr = why+" while the service was still failing, and "+j.Reason, ErrNoVerdict
	}
}

// progress reports the newest row to the Progress callback, once per row.
func (r *run) progress() {
	if r.opts.Progress == nil || len(r.rows) == 0 || len(r.rows)-1 == r.lastStatus {
		return
	}
	r.lastStatus = len(r.rows) - 1
	r.opts.Progress(r.status(r.phase))
}

func (r *run) status(phase analysis.Phase) Status {
	st := Status{Phase: phase, Elapsed: r.drv.Elapsed(), SuccessRatio: math.NaN(), WaitS: math.NaN(), Verdict: r.verdict, Note: r.reason}
	if st.Verdict == "" && r.observed != "" {
		st.Verdict, st.Note = analysis.VerdictMetastable, r.observed
	}
	if src := r.choice.series.Source; src != "" {
		st.WaitS, st.WaitSource = r.waits.latest(src), src
	}
	var blind []string
	for _, b := range r.choice.blind {
		blind = append(blind, string(b.Source))
	}
	st.WaitBlind = strings.Join(blind, ", ")
	if left := r.spec.Horizon() - st.Elapsed; left > 0 {
		st.Remaining = left
	}
	if n := len(r.rows); n > 0 {
		last := r.rows[n-1]
		st.RatePerS, st.Attempts, st.SuccessRatio = last.Sent, last.Attempts(), last.FirstSuccessRatio()
		st.Failed, st.Timeouts, st.Errors, st.Refused = last.FirstFailed(), last.FirstTimeouts, last.FirstErrors, last.FirstConnect
		st.Auth = analysis.ZeroIfUnknown(last.FirstAuth)
		names := requestNames(r.test.Driver.Mix)
		for i, q := range last.Requests {
			if i < len(names) {
				ratio := math.NaN()
				if done := q.FirstDone(); done > 0 {
					ratio = q.FirstOK / done
				}
				st.Requests = append(st.Requests, RequestStatus{Name: names[i], SuccessRatio: ratio})
			}
		}
	}
	return st
}

// facts are what Infer needs besides the timeline, now seconds into the
// run, with the run's judgement of the wait.
func (r *run) facts(now float64, j analysis.Judgement) infer.RunFacts {
	to := now
	if !math.IsNaN(r.recoveryS) {
		to = r.spikeEnd + r.recoveryS
	}
	if r.onTrap != nil {
		to = math.Min(to, r.onTrap.at)
	}
	qi, _ := r.mets.signal("ingress")
	baselineTo := math.Inf(1)
	if r.onTrap != nil {
		baselineTo = r.onTrap.at
	}
	return infer.RunFacts{
		BaselineToS:           baselineTo,
		SpikeStartS:           r.spikeStart,
		SpikeEndS:             r.spikeEnd,
		TimeoutS:              r.timeoutS(),
		PatienceS:             r.plan.Scenario.PatienceS,
		Multiplier:            r.inputs.Scenario.Multiplier,
		FaultCapacity:         r.faultCapacity(),
		SuccessRatio:          r.spec.Recovery.SuccessRatio,
		RetrySettleS:          r.retrySettle,
		IngressLagS:           r.mets.ingressLag(),
		IngressRangeS:         qi.RangeS,
		IngressResolutionS:    qi.ScrapeS,
		FailedToS:             to,
		RecoveryS:             r.triggeredRecovery(),
		ScenarioCapacityPerS:  r.inputs.Scenario.CapacityPerS,
		ScenarioDemandPerS:    r.inputs.Scenario.DemandPerS,
		Cohorts:               cohorts(r.cohorts),
		Wait:                  j,
		Trapped:               r.verdict == analysis.VerdictTrapped,
		ClientAmplification:   r.plan.Amplification.Client,
		ScenarioAmplification: r.plan.Amplification.Predicted,
	}
}

// triggeredRecovery is the recovery time of a service the spike pushed
// into a failed state; NaN for a run without a trigger (nothing failed,
// so nothing recovered, and no A can be read from the time it took).
func (r *run) triggeredRecovery() float64 {
	if r.verdict == analysis.VerdictNoTrigger {
		return math.NaN()
	}
	return r.recoveryS
}

// infer estimates the model's parameters from the run so far, with the
// shortest patience the run knows of.
func (r *run) infer(now float64, j analysis.Judgement) infer.Inference {
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
func (r *run) patience(in infer.Inference) (float64, string) {
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

// cohorts converts the driver's cohorts for the estimators.
func cohorts(cs []loadgen.Cohort) []infer.Cohort {
	out := make([]infer.Cohort, len(cs))
	for i, c := range cs {
		out[i] = infer.Cohort{TS: float64(c.Index), First: float64(c.First), Attempts: float64(c.Attempts),
			Succeeded: float64(c.Succeeded), Open: float64(c.Open)}
	}
	return out
}

// measuredBy is when the failed state after the spike has been watched long
// enough to measure A_fail with an interval: the retry streams settled, the
// ingress query's window past the spike, and three scrapes (at least
// minFailedWindow seconds) of the settled failed state. Zero without an
// ingress query (then A_fail cannot be measured at all).
func (r *run) measuredBy() float64 {
	if !r.mets.has("ingress") {
		return 0
	}
	return r.spikeEnd + r.settledAfter()
}

// minFailedWindow is how long, in seconds, the settled failed state must be
// watched at the least for A_fail to be measured before a judged run stops.
const minFailedWindow = 3.0

// settledAfter is how long after the spike's end the failed state can be
// measured: the retry streams settled, the ingress window past the spike,
// and three scrapes of it (at least minFailedWindow seconds).
func (r *run) settledAfter() float64 {
	qi, _ := r.mets.signal("ingress")
	return r.retrySettle + r.mets.ingressLag() + math.Max(minFailedWindow, 3*qi.ScrapeS)
}

// faultStartResult is the end of a fault's start command.
type faultStartResult struct {
	at  float64 // run seconds
	err error
}

// faultStep moves the fault on: once its start command has ended, the
// fault holds for its Δ from then (the spike's end moves there); at that
// end its stop command runs, off the loop. A start that failed, or a stop
// that failed, ends the run (it returns true); the run's end runs the
// stop if it has not run.
func (r *run) faultStep(now float64) bool {
	select {
	case res := <-r.faultStarted:
		if res.err != nil {
			r.inconclusive = fmt.Sprintf("the fault's start command %q failed: %v", r.spec.Fault.Start, res.err)
			r.inconclusiveErr = ErrFaultStart
			return true
		}
		r.faultStartS = res.at
		r.spikeEnd = res.at + r.spec.Fault.Duration.Seconds()
		r.opts.logf("fault %q: in place; holding for %s", r.spec.Fault.Name, r.spec.Fault.Duration)
	default:
	}
	if !math.IsNaN(r.faultStartS) && math.IsNaN(r.faultStopS) && now >= r.spikeEnd {
		r.faultStopS = now
		go func() { _ = r.fault.stop("its duration is over") }()
	}
	if r.fault.failure() != "" {
		return true
	}
	return false
}

// faultCapacity is C′/C of the run's fault; 0 without one.
func (r *run) faultCapacity() float64 {
	if f := r.inputs.Scenario.Fault; f != nil {
		return f.Capacity
	}
	return 0
}
