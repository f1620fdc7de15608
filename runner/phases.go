package runner

import (
	"fmt"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
)

// step moves the run through its phases after each collection and reports
// whether the run is over.
func (r *run) step() bool {
	now := r.elapsed()
	switch r.phase {
	case "warmup":
		if now < r.s.Load.Warmup.Seconds() {
			break
		}
		if why, refused := r.baselineFailing(); why != "" {
			r.inconclusive, r.targetRefused = why, refused
			return true
		}
		r.startSpike()
	case "spike":
		if now >= r.spikeEnd {
			r.phase = "observe"
		}
	case "observe":
		if r.observe(now) {
			return true
		}
	case "on_trap":
		if r.watchOnTrap(now) {
			return true
		}
	}
	r.progress()
	return false
}

// baselineFailing says why the service is already failing at baseline, or
// "" when it is healthy: more attempts failed during warmup (the first
// second, connection set-up, aside) than the recovery threshold allows.
// refused is set when the failures are all connections the target refused:
// then the target is down, not overloaded.
func (r *run) baselineFailing() (why string, refused bool) {
	var failures, connect, done float64
	for _, row := range r.rows {
		if row.TS < 1 {
			continue
		}
		failures += row.Failures()
		connect += row.Connect
		done += row.OK + row.Failures()
	}
	if failures == 0 || failures <= (1-r.s.Recovery.SuccessRatio)*done {
		return "", false
	}
	if connect == failures {
		return fmt.Sprintf("the target refused every connection during the warmup (%.0f attempts to %s): is it up?", connect, r.s.Target.URL), true
	}
	return fmt.Sprintf("%.0f of %.0f attempts failed during the warmup at %.0f/s, before any spike; a trigger test needs a healthy baseline",
		failures, done, r.s.Load.Baseline), false
}

// startSpike replaces the rest of the schedule by the spike and the
// observation at baseline, and records when the spike started.
func (r *run) startSpike() {
	l := r.s.Load
	rest := l.Observe + time.Minute
	if r.s.OnTrap != nil {
		rest += r.s.OnTrap.Observe
	}
	r.drv.Replan([]loadgen.Stage{
		loadgen.Constant(l.Spike.Duration, l.Spike.Multiplier*l.Baseline),
		loadgen.Constant(rest, l.Baseline),
	})
	r.spikeStart = r.elapsed()
	r.spikeEnd = r.spikeStart + l.Spike.Duration.Seconds()
	r.phase = "spike"
	r.opts.logf("spike: %.0f/s for %s", l.Spike.Multiplier*l.Baseline, l.Spike.Duration)
}

// observe judges the run after the spike: recovered once the first-attempt
// success ratio is back above its threshold and held; trapped or
// metastable as soon as the wait's trend says so; else at the horizon.
func (r *run) observe(now float64) bool {
	rec := r.s.Recovery
	if at, ok := analysis.FindRecovery(r.rows, r.recoverySearchFrom(), rec.SuccessRatio, rec.Hold.Seconds()); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		if analysis.Triggered(r.rows, r.spikeStart) {
			r.verdict = analysis.VerdictRecovered
			r.reason = fmt.Sprintf("the first-attempt success ratio was back above %.3g and held for %s", rec.SuccessRatio, rec.Hold)
		} else {
			r.verdict = analysis.VerdictNoTrigger
			r.reason = "no attempt timed out or was refused: the spike never pushed waits past the client timeout"
		}
		return true
	}
	if r.verdict == "" {
		if tv := r.judgeTrend(now, analysis.TrendPolicy{MinPoints: 4}); tv.Decided {
			r.trend, r.judgedAt = tv, now
			r.verdict, r.reason = tv.Verdict, tv.Reason
			r.opts.logf("judged %s %.1f s after the spike: %s", tv.Verdict, now-r.spikeEnd, tv.Reason)
		}
	}
	if r.verdict != "" {
		// Judged: keep the failed state a few seconds more if A_fail has
		// not been measured yet, then act or stop.
		if now < r.measuredBy() {
			return false
		}
		if r.verdict == analysis.VerdictTrapped && r.s.OnTrap != nil {
			r.startOnTrap(now)
			return false
		}
		return true
	}
	if now >= r.spikeEnd+r.s.Load.Observe.Seconds() {
		r.horizon("the observation horizon was reached")
		if r.verdict == analysis.VerdictTrapped && r.s.OnTrap != nil {
			r.startOnTrap(now)
			return false
		}
		return true
	}
	return false
}

// recoverySearchFrom is where the search for a recovery starts: one client
// timeout after the spike's end. Outcomes are counted when attempts
// complete, so the last spike attempts that met a long wait show their
// timeouts only then; before, the seconds can look healthy.
func (r *run) recoverySearchFrom() float64 {
	return r.spikeEnd + r.s.Client.Timeout.Seconds()
}

// judgeTrend fits the wait samples from the settled part of the
// observation (SPEC: the wait changes at A·ρ − 1).
func (r *run) judgeTrend(now float64, policy analysis.TrendPolicy) analysis.TrendVerdict {
	ts, ws := r.wait.since(r.spikeEnd+r.settle, r.spikeEnd)
	budget := r.s.Gate.MaxRecovery.Seconds()
	return analysis.JudgeTrend(ts, ws, now-r.spikeEnd, r.wait.latest(), r.s.Client.Timeout.Seconds(), r.utilization(now), budget, policy)
}

// utilization is ρ as measured so far: the warmup's first-attempt rate over
// the served rate since the spike began (the scenario's capacity until the
// service reports one).
func (r *run) utilization(now float64) float64 {
	in := analysis.Infer(r.rows, r.facts(now), nil, nil)
	return in.Utilization
}

// horizon ends a run that did not recover: trapped when the wait is not
// falling, metastable when it is (with a projected recovery time).
func (r *run) horizon(why string) {
	if r.verdict != "" || r.inconclusive != "" || math.IsNaN(r.spikeEnd) {
		if math.IsNaN(r.spikeEnd) && r.inconclusive == "" {
			r.inconclusive = why + " before the spike"
		}
		return
	}
	if at, ok := analysis.FindRecovery(r.rows, r.recoverySearchFrom(), r.s.Recovery.SuccessRatio, r.s.Recovery.Hold.Seconds()); ok {
		r.recoveryS = math.Max(0, at-r.spikeEnd)
		r.verdict, r.reason = analysis.VerdictRecovered, "recovered by the end of the run"
		return
	}
	if !analysis.Triggered(r.rows, r.spikeStart) {
		r.verdict, r.reason = analysis.VerdictNoTrigger, why+"; no attempt timed out or was refused"
		return
	}
	tv := r.judgeTrend(r.elapsed(), analysis.TrendPolicy{MinPoints: 3, PatientPoints: 3})
	r.trend, r.judgedAt = tv, r.elapsed()
	switch {
	case tv.Trend.N < 3:
		r.verdict, r.reason = analysis.VerdictMetastable, why+" while still failing; no wait signal to tell a trap from a slow recovery"
	case tv.Trend.Slope >= 0:
		r.verdict, r.reason = analysis.VerdictTrapped, why+"; the wait was not falling"
	default:
		r.verdict, r.reason = analysis.VerdictMetastable, fmt.Sprintf("%s while still failing; the wait was falling at %.3f s/s", why, -tv.Trend.Slope)
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

func (r *run) status(phase string) Status {
	st := Status{Phase: phase, Elapsed: r.drv.Elapsed(), SuccessRatio: math.NaN(), WaitS: r.wait.latest(), Verdict: r.verdict, Note: r.reason}
	horizon := r.s.Load.Warmup + r.s.Load.Spike.Duration + r.s.Load.Observe
	if r.s.OnTrap != nil {
		horizon += r.s.OnTrap.Observe
	}
	if left := horizon - st.Elapsed; left > 0 {
		st.Remaining = left
	}
	if n := len(r.rows); n > 0 {
		last := r.rows[n-1]
		st.RatePerS, st.Attempts, st.Timeouts, st.SuccessRatio = last.Sent, last.Attempts(), last.Timeouts, last.FirstSuccessRatio()
	}
	return st
}

// facts are what Infer needs besides the timeline, now seconds into the run.
func (r *run) facts(now float64) analysis.RunFacts {
	to := now
	if !math.IsNaN(r.recoveryS) {
		to = r.spikeEnd + r.recoveryS
	}
	if r.onTrap != nil {
		to = math.Min(to, r.onTrap.at)
	}
	return analysis.RunFacts{
		T0S:                  r.t0(),
		SpikeStartS:          r.spikeStart,
		SpikeEndS:            r.spikeEnd,
		TimeoutS:             r.s.Client.Timeout.Seconds(),
		Multiplier:           r.s.Load.Spike.Multiplier,
		SettleS:              r.settle,
		RateLagS:             r.mets.rateLag(),
		FailedToS:            to,
		RecoveryS:            r.recoveryS,
		ScenarioCapacityPerS: r.s.Service.Capacity,
		ScenarioDemandPerS:   r.s.Load.Baseline,
	}
}

// t0 is when the first attempt met a wait past τ_out, seconds after the
// spike started (NaN when none did). A timeout is counted when it fires,
// τ_out after its attempt met the long wait; a refusal is immediate.
func (r *run) t0() float64 {
	for _, row := range r.rows {
		if row.TS+1 > r.spikeStart && row.Timeouts+row.Rejected > 0 {
			met := row.TS
			if row.Timeouts > 0 {
				met -= r.s.Client.Timeout.Seconds()
			}
			return math.Max(0, met-r.spikeStart)
		}
	}
	return math.NaN()
}

// minFailedWindow is how long, in seconds, the settled failed state must be
// watched for A_fail to be measured before a judged run stops.
const minFailedWindow = 3.0

// measuredBy is when the failed state after the spike has been watched long
// enough to measure A_fail: the retry streams settled, the service's rate
// windows past the spike, and minFailedWindow more. Zero without an
// ingress query (then A_fail cannot be measured at all).
func (r *run) measuredBy() float64 {
	if !r.mets.has("ingress") {
		return 0
	}
	return r.spikeEnd + r.settledAfter()
}

// settledAfter is how long after the spike's end the failed state can be
// measured: the retry streams settled, the rate windows past the spike,
// and minFailedWindow seconds of it.
func (r *run) settledAfter() float64 {
	return r.settle + r.mets.rateLag() + minFailedWindow
}
