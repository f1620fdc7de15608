package request

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// finish closes the timeline at end and judges the run as the fluid model
// does: recovered when, after the spike and the last failed attempt, the
// queue emptied and nothing was left to fail; otherwise trapped when the
// wait's trend is not falling at the horizon, metastable when it is, with a
// projected recovery time (analysis.Judge, analysis.ModelVerdict).
func (r *sim) finish(end float64) {
	res := &r.res
	rows, served, abandoned, queued := r.tl.finish(r.station, end)
	c := &res.Counts
	c.Served, c.Abandoned, c.Queued = int64(served), int64(abandoned), int64(queued)
	c.Pending = int64(r.ring.size + len(r.retries.h))

	res.EndS = end
	res.Timeline = rows
	res.PeakWaitS = r.tl.peak
	res.FinalWaitS = r.station.wait(end)
	res.AmplificationFailed = r.tl.fail.Ratio()
	res.TimedOut, res.Refused, res.Abandoned = float64(c.TimedOut), float64(c.Refused), float64(c.Abandoned)
	res.FailedRequests = float64(c.GaveUp)
	if base := r.cfg.Stages[0].RatePerS; base > 0 {
		res.LostWorkS = r.lostFirst / base
	}
	if !math.IsNaN(r.firstFail) {
		res.T0S = r.firstFail - r.spikeStart
	}
	if idle := r.station.idleFrom(); math.IsNaN(r.cleanFrom) && idle <= end {
		// The queue emptied after the last arrival.
		if e := math.Max(idle, r.spikeEnd); e <= end {
			r.cleanFrom = e
		}
	}
	clean := !math.IsNaN(r.cleanFrom) && c.Pending == 0 && !res.Collapsed() && !res.Truncated
	recovery := math.Inf(1)
	if clean {
		recovery = math.Max(0, r.cleanFrom-r.spikeEnd)
	}
	switch {
	case res.Collapsed():
		res.Verdict = analysis.VerdictTrapped
		res.RecoveryS, res.ProjectedRecoveryS = recovery, recovery
		res.WaitSlope = r.judgeWait(end).Trend.Slope
	case math.IsNaN(r.firstFail):
		res.Verdict = analysis.VerdictNoTrigger
		res.RecoveryS, res.ProjectedRecoveryS = recovery, recovery
	case clean:
		res.Verdict = analysis.VerdictRecovered
		res.RecoveryS, res.ProjectedRecoveryS = recovery, recovery
	default:
		j := r.judgeWait(end)
		res.RecoveryS = recovery
		res.WaitSlope = j.Trend.Slope
		res.ProjectedRecoveryS = j.ProjectedS
		res.Verdict = analysis.ModelVerdict(j)
	}
}

// judgeWait judges the wait over the last quarter of the time after the
// spike (at least two settling times of the retry streams) by the one
// verdict rule (Judge), on the rows' end-of-sample waits.
func (r *sim) judgeWait(end float64) analysis.Judgement {
	after := end - r.spikeEnd
	window := math.Max(0.25*after, 2*float64(r.tl.settle)*r.tl.sample)
	from := math.Max(r.spikeEnd, end-window)
	w := analysis.WaitSeries{Source: analysis.WaitFromRequestModel, DelayS: from - r.spikeEnd, ResolutionS: r.tl.sample}
	for _, row := range r.res.Timeline {
		rowEnd := math.Min(row.TS+r.tl.sample, end)
		if rowEnd >= from && rowEnd <= end {
			w.T, w.W = append(w.T, rowEnd), append(w.W, row.WaitS)
		}
	}
	stage := min(r.arrivals.idx, len(r.cfg.Stages)-1)
	rho := r.cfg.Stages[stage].RatePerS / r.capacity
	return analysis.Judge(analysis.JudgeInput{Wait: w, SpikeEndS: r.spikeEnd, FailedToS: math.Inf(1), HorizonS: end,
		PatienceS: r.timeout, Utilization: rho, Final: true}, analysis.ModelJudgePolicy(0))
}
