package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/vocab"
)

// onTrap is what the referee judges of the scenario's on_trap action.
type onTrap struct {
	at        float64 // seconds since the load started
	recovered float64 // seconds since the action; NaN until back
	// held is the wait's trend at the held demand (action rate).
	held analysis.Judgement
}

// newOnTrap is an action started at atS, nothing measured yet: no
// recovery, and no trend at a held demand (a zero Judgement's interval
// [0, 0] would read as "not falling", a claim nothing measured).
func newOnTrap(atS float64) *onTrap {
	return &onTrap{at: atS, recovered: math.NaN(), held: analysis.Judgement{SlopeLo: math.NaN(), SlopeHi: math.NaN(),
		Reason: "not judged: the run ended first"}}
}

// watchOnTrap ends the run once the service is back after the action, or
// when on_trap's observation is over. Back means: the first-attempt
// success ratio recovered and held; with demand dropped to zero, the wait
// drained below a tenth of the timeout and held.
func (r *Referee) watchOnTrap(now float64, d *Decision) {
	st, ot := r.onTrap, r.cfg.OnTrap
	action := ot.Action
	at, ok := infer.FindRecovery(r.rows, st.at, r.cfg.SuccessRatio, r.cfg.HoldS)
	if action == vocab.TrapDrop.String() {
		at, ok = r.drained(st.at, r.cfg.HoldS)
	}
	if action == vocab.TrapRate.String() {
		st.held = r.judgeHeld(now >= st.at+ot.ObserveS)
		if r.cfg.JudgeHeldDemand && !ok && st.held.Decided() {
			r.reason += "; after on_trap rate " + heldTrend(st.held).Reason
			d.Over = true
			return
		}
	}
	switch {
	case ok:
		st.recovered = math.Max(0, at-st.at)
		r.reason += fmt.Sprintf("; after on_trap %s the service was back in %s", action, analysis.FormatSeconds(st.recovered))
		d.Over = true
	case now < st.at+ot.ObserveS:
	case action == vocab.TrapDrop.String() && r.choice.series.Source == "":
		r.reason += "; after on_trap drop the drain could not be measured (no wait signal: add a wait query or tracers)"
		d.Over = true
	default:
		r.reason += fmt.Sprintf("; still not back %s after on_trap %s", analysis.FormatSeconds(ot.ObserveS), action)
		d.Over = true
	}
}

// judgeHeld fits the wait's trend from on_trap's start on, with the
// chosen wait signal's settling delay: at the held demand λ the failed
// state's wait changes at A·λ/C − 1 per second (docs/model.md, "Mapping
// the boundary", hysteresis).
func (r *Referee) judgeHeld(final bool) analysis.Judgement {
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
		HorizonS:    st.at + r.cfg.OnTrap.ObserveS,
		PatienceS:   r.timeoutS(),
		Utilization: math.NaN(),
		Final:       final,
	}
	if c := r.plan.Scenario.CapacityPerS; c > 0 {
		in.Utilization = r.cfg.OnTrap.RatePerS / c
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
func (r *Referee) drained(from, hold float64) (float64, bool) {
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
