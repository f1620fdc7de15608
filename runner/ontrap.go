package runner

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// onTrapState is the scenario's on_trap action under way.
type onTrapState struct {
	at        float64 // seconds since the load started
	recovered float64 // seconds since the action; NaN until back
	// err is a command's failure; written by its goroutine before done is
	// closed, read only after stop.
	err     string
	cancel  context.CancelFunc
	done    chan struct{} // closed when a command has ended
	stopped bool          // stop has run
	// held is the wait's trend at the held demand (action rate).
	held analysis.Judgement
	ours atomic.Bool // the run cancelled the command itself
}

// newOnTrapState is an action started at now (seconds since the load
// started), nothing measured yet: no recovery, and no trend at a held
// demand (a zero Judgement's interval [0, 0] would read as "not falling",
// a claim nothing measured).
func newOnTrapState(now float64) *onTrapState {
	return &onTrapState{at: now, recovered: math.NaN(), held: analysis.Judgement{SlopeLo: math.NaN(), SlopeHi: math.NaN(),
		Reason: "not judged: the run ended first"}}
}

// startOnTrap runs the scenario's on_trap action once the service is
// judged trapped, or seen failing past its recovery budget: drop demand to zero, set it to a rate, or run a command
// (demand stays at baseline).
func (r *run) startOnTrap(now float64) {
	ot := r.spec.OnTrap
	st := newOnTrapState(now)
	r.onTrap = st
	r.setPhase(analysis.PhaseOnTrap)
	switch ot.Action {
	case vocab.TrapDrop, vocab.TrapRate:
		rate := 0.0
		if ot.Action == vocab.TrapRate {
			rate = ot.Rate
		}
		// Agents change their schedule a moment later than one driver
		// does: the way back is timed from then.
		st.at = max(st.at, r.drv.Replan([]loadgen.Stage{loadgen.Constant(ot.Observe+time.Minute, rate)}).Seconds())
		r.opts.logf("on_trap: %s; demand set to %g/s, watching for %s", r.verdict, rate, ot.Observe)
	case vocab.TrapCommand:
		ctx, cancel := context.WithTimeout(context.Background(), ot.Observe)
		st.cancel, st.done = cancel, make(chan struct{})
		cmd := exec.CommandContext(ctx, ot.Command[0], ot.Command[1:]...)
		// Secrets reach it through its environment, never its argv.
		cmd.Env = commandEnv(ot.Env)
		// The command and everything it starts form one process group,
		// killed as a whole when the run no longer needs it; output pipes
		// held by a stray grandchild cannot keep the run waiting.
		killGroupOnCancel(cmd)
		cmd.WaitDelay = 2 * time.Second
		r.opts.logf("on_trap: %s; running %s%s", r.verdict, safetext.Argv(ot.Command), envNote(ot.Env))
		go func() {
			defer close(st.done)
			// Only the first 400 bytes are reported: at most that much is kept.
			out := &cappedBuffer{max: 400}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Run(); err != nil && !st.ours.Load() {
				st.err = fmt.Sprintf("%s: %v: %s", safetext.Argv(ot.Command), err, truncate(out.buf.String(), 400))
			}
		}()
	}
}

// watchOnTrap ends the run once the service is back after the action, or
// when on_trap's observation is over. Back means: the first-attempt
// success ratio recovered and held; with demand dropped to zero, the wait
// drained below a tenth of the timeout and held.
func (r *run) watchOnTrap(now float64) bool {
	st, ot := r.onTrap, r.spec.OnTrap
	hold := r.spec.Recovery.Hold.Seconds()
	at, ok := infer.FindRecovery(r.rows, st.at, r.spec.Recovery.SuccessRatio, hold)
	if ot.Action == vocab.TrapDrop {
		at, ok = r.drained(st.at, hold)
	}
	if ot.Action == vocab.TrapRate {
		st.held = r.judgeHeld(now, now >= st.at+ot.Observe.Seconds())
		if r.opts.JudgeHeldDemand && !ok && st.held.Decided() {
			r.reason += "; after on_trap rate " + heldTrend(st.held).Reason
			r.stopOnTrap()
			return true
		}
	}
	if ok {
		st.recovered = math.Max(0, at-st.at)
		r.reason += fmt.Sprintf("; after on_trap %s the service was back in %s", ot.Action, analysis.FormatSeconds(st.recovered))
		r.stopOnTrap()
		return true
	}
	if now >= st.at+ot.Observe.Seconds() {
		if ot.Action == vocab.TrapDrop && r.choice.series.Source == "" {
			r.reason += "; after on_trap drop the drain could not be measured (no wait signal: add a wait query or tracers)"
			r.stopOnTrap()
			return true
		}
		r.reason += fmt.Sprintf("; still not back %s after on_trap %s", ot.Observe, ot.Action)
		r.stopOnTrap()
		return true
	}
	return false
}

// judgeHeld fits the wait's trend from on_trap's start on, with the
// chosen wait signal's settling delay: at the held demand λ the failed
// state's wait changes at A·λ/C − 1 per second (docs/model.md, "Mapping
// the boundary", hysteresis).
func (r *run) judgeHeld(now float64, final bool) analysis.Judgement {
	st := r.onTrap
	// The chosen signal's samples as they stand now (r.choice holds them
	// as they were at the verdict).
	wait := r.choice.series
	if w := r.waits.series[wait.Source]; w != nil {
		wait = *w
	}
	in := analysis.JudgeInput{
		Wait:        wait,
		SpikeEndS:   st.at,
		FailedToS:   math.NaN(),
		HorizonS:    st.at + r.spec.OnTrap.Observe.Seconds(),
		PatienceS:   r.timeoutS(),
		Utilization: math.NaN(),
		Final:       final,
	}
	if c := r.inputs.Scenario.CapacityPerS; c > 0 {
		in.Utilization = r.spec.OnTrap.Rate / c
	}
	return analysis.Judge(in, analysis.MeasuredJudgePolicy)
}

// heldTrend is the document's form of the held demand's trend.
func heldTrend(j analysis.Judgement) *analysis.HeldTrend {
	h := &analysis.HeldTrend{Reason: "the wait's trend at the held demand: " + j.Reason, Falling: j.Falling(), NotFalling: j.NotFalling()}
	if !math.IsNaN(j.SlopeLo) {
		h.Slope, h.SlopeLo, h.SlopeHi = analysis.Num(j.Trend.Slope), analysis.Num(j.SlopeLo), analysis.Num(j.SlopeHi)
		slope := j.SlopeText()
		switch {
		case h.Falling:
			h.Reason = "at the held demand the wait is falling: " + slope
		case h.NotFalling:
			h.Reason = "at the held demand the wait is not falling: " + slope
		default:
			h.Reason = "at the held demand the wait's trend cannot tell: " + slope
		}
	}
	return h
}

// drained finds when the wait fell below τ_out/10 and stayed for hold
// seconds after from (demand at zero, so success ratios say nothing).
func (r *run) drained(from, hold float64) (float64, bool) {
	limit := r.timeoutS() / 10
	start, held := math.NaN(), 0.0
	// The samples of the wait the verdict was judged on, as they stand now.
	w := r.waits.series[r.choice.series.Source]
	if w == nil {
		return math.NaN(), false
	}
	for i, t := range w.T {
		if t < from {
			continue
		}
		if w.W[i] <= limit {
			if math.IsNaN(start) {
				start = t
			}
			if held++; held >= hold {
				return start, true
			}
		} else {
			start, held = math.NaN(), 0
		}
	}
	return math.NaN(), false
}

// stopOnTrap ends a command still running (once the service is back, or
// when the run stops for any reason) and waits for it. Safe to call twice.
func (r *run) stopOnTrap() {
	st := r.onTrap
	if st == nil || st.stopped {
		return
	}
	st.stopped = true
	if st.cancel != nil {
		select {
		case <-st.done:
		default:
			st.ours.Store(true)
		}
		st.cancel()
		<-st.done
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
