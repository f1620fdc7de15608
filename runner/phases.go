package runner

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
)

// step moves the run on after each collection (the referee has judged
// every new row there, and the run acted on it) and reports whether the
// run is over: the referee has its verdict, or a fault failed.
func (r *run) step() bool {
	start, _ := r.ref.Spike()
	if r.fault != nil && !math.IsNaN(start) && !r.over && r.faultStep(r.elapsed()) {
		return true
	}
	if r.over {
		return true
	}
	r.progress()
	return false
}

// act carries out what the referee decided on the row that ended at now
// (seconds since the load started): it logs the referee's notes, starts
// the spike or the on_trap action, or ends the run.
func (r *run) act(d referee.Decision, now float64) {
	for _, n := range d.Notes {
		r.opts.logf("%s", n)
	}
	switch {
	case d.StartSpike:
		r.startSpike()
	case d.StartOnTrap:
		r.startOnTrap(now)
	case d.Over:
		r.over = true
	}
	if p := r.ref.Phase(); p != r.phase && !d.Over {
		r.setPhase(p)
	}
}

// startSpike replaces the rest of the schedule by the spike and the
// observation at baseline, and tells the referee when the spike started.
func (r *run) startSpike() {
	baseline, spike := r.inputs.Scenario.DemandPerS, r.spec.SpikeDuration
	peak := r.inputs.Scenario.Multiplier * baseline
	at := r.drv.Replan([]loadgen.Stage{
		loadgen.Constant(spike, peak),
		loadgen.Constant(r.spec.AfterSpike()+convert.ScheduleSlack, baseline),
	})
	r.ref.SpikeStarted(at.Seconds(), at.Seconds()+spike.Seconds())
	r.splitPhase(at.Seconds(), analysis.PhaseSpike)
	r.splitPhase(at.Seconds()+spike.Seconds(), analysis.PhaseObserve)
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

// progress reports the newest row to the Progress callback, once per row.
func (r *run) progress() {
	rows := r.ref.Rows()
	if r.opts.Progress == nil || len(rows) == 0 || len(rows)-1 == r.lastStatus {
		return
	}
	r.lastStatus = len(rows) - 1
	r.opts.Progress(r.status(r.phase))
}

func (r *run) status(phase analysis.Phase) Status {
	rs := r.ref.Status()
	st := Status{Phase: phase, Elapsed: r.drv.Elapsed(), SuccessRatio: math.NaN(), WaitS: rs.WaitS, WaitSource: rs.WaitSource,
		Verdict: rs.Verdict, Note: rs.Note}
	var blind []string
	for _, b := range rs.Blind {
		blind = append(blind, string(b))
	}
	st.WaitBlind = strings.Join(blind, ", ")
	if left := r.spec.Horizon() - st.Elapsed; left > 0 {
		st.Remaining = left
	}
	rows := r.ref.Rows()
	if n := len(rows); n > 0 {
		last := rows[n-1]
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

// cohorts converts the driver's cohorts for the referee.
func cohorts(cs []loadgen.Cohort) []analysis.Cohort {
	out := make([]analysis.Cohort, len(cs))
	for i, c := range cs {
		out[i] = analysis.Cohort{TS: float64(c.Index), First: float64(c.First), Attempts: float64(c.Attempts),
			Succeeded: float64(c.Succeeded), Open: float64(c.Open)}
	}
	return out
}

// faultStartResult is the end of a fault's start command.
type faultStartResult struct {
	at  float64 // run seconds
	err error
}

// faultStep moves the fault on: once its start command has ended, the
// fault holds for its Δ from then (the referee moves the spike's end
// there); at that end its stop command runs, off the loop. A start that
// failed, or a stop that failed, ends the run (it returns true); the
// run's end runs the stop if it has not run.
func (r *run) faultStep(now float64) bool {
	select {
	case res := <-r.faultStarted:
		if res.err != nil {
			r.harnessInconclusive = fmt.Sprintf("the fault's start command %q failed: %v", r.spec.Fault.Start, res.err)
			r.harnessInconclusiveErr = ErrFaultStart
			return true
		}
		r.faultStartS = res.at
		r.ref.FaultStarted(res.at)
		// The spike now ends with the fault's hold.
		_, end := r.ref.Spike()
		r.splitPhase(res.at, analysis.PhaseSpike)
		r.splitPhase(end, analysis.PhaseObserve)
		r.opts.logf("fault %q: in place; holding for %s", r.spec.Fault.Name, r.spec.Fault.Duration)
	default:
	}
	if _, end := r.ref.Spike(); !math.IsNaN(r.faultStartS) && math.IsNaN(r.faultStopS) && now >= end {
		r.faultStopS = now
		r.ref.FaultStopped(now)
		go func() { _ = r.fault.stop("its duration is over") }()
	}
	return r.fault.failure() != ""
}
