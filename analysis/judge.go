package analysis

import (
	"fmt"
	"math"
	"sort"
)

// WaitSeries is a wait signal after a spike: samples of the queue wait and
// how late they tell the truth. The fluid model, the request-level model
// and a real run all hand their wait to Judge in this form.
type WaitSeries struct {
	// Source names the signal (WaitSource: the service's wait gauge, the
	// tracers the service answered, the backlog integrated from its rates,
	// or a model's own wait); empty when there is none.
	Source WaitSource
	// T and W are the samples: when (seconds since the run started) and
	// the wait then (seconds). T need not be sorted.
	T, W []float64
	// DelayS is how long after the spike's end, in seconds, the samples
	// hold only the state after it: the clients' retry streams settling,
	// plus the signal's own lag (a query's range window and offset, the
	// scrape interval). Samples before SpikeEnd + DelayS still carry the
	// spike and are never judged.
	DelayS float64
	// ResolutionS is the time between independent samples, seconds: the
	// scrape interval of a Prometheus signal, one second for the driver's
	// own counts, the sample step of a model. Samples are averaged per
	// ResolutionS before the fit.
	ResolutionS float64
}

// JudgeInput is what the verdict rule needs besides the wait.
type JudgeInput struct {
	Wait WaitSeries
	// SpikeEndS is when the spike ended, seconds since the run started.
	SpikeEndS float64
	// FailedToS ends the failed state the trend is fitted over (the
	// recovery's start, an on_trap action); NaN or +Inf: still failing.
	FailedToS float64
	// HorizonS is when the observation ends, seconds since the run started.
	HorizonS float64
	// PatienceS is the shortest patience in front of the service (the
	// client timeout, or a layer's shorter per-try timeout): the wait
	// falls at 1 − A·ρ down to it, then at 1 − ρ (docs/model.md, "The
	// trap", phases).
	PatienceS float64
	// Utilization is ρ at baseline; NaN when unknown (then no recovery time
	// is projected and no early metastable verdict given).
	Utilization float64
	// BudgetS is the recovery budget in seconds (0: none).
	BudgetS float64
	// Final says that no more data will come: the run or the model ends now.
	Final bool
}

// JudgePolicy tunes the verdict rule.
type JudgePolicy struct {
	// MinPoints is the fewest independent (binned) samples before any
	// verdict; default 4.
	MinPoints int
	// MinStdErr floors the slope's standard error, seconds per second, so
	// that a few exact-looking points are not over-trusted; default 0.002.
	// An exact model passes a tiny positive value.
	MinStdErr float64
}

func (p JudgePolicy) withDefaults() JudgePolicy {
	if p.MinPoints <= 0 {
		p.MinPoints = 4
	}
	if p.MinStdErr <= 0 {
		p.MinStdErr = 0.002
	}
	return p
}

// Judgement is what the wait's trend after a spike says.
type Judgement struct {
	// Verdict is trapped or metastable once the evidence shows it; empty
	// while undecided (keep watching, or, when Final, cannot tell).
	Verdict Verdict
	// Source is the wait signal judged; DelayS its delay after the spike.
	Source WaitSource
	DelayS float64
	// Settled is set once the signal holds only the state after the spike
	// (SettledAtS = SpikeEndS + DelayS, seconds since the run started).
	Settled    bool
	SettledAtS float64
	// Trend is the least-squares fit through the settled, binned samples;
	// SlopeLo and SlopeHi its 95 % interval (NaN with too few points).
	Trend            Trend
	SlopeLo, SlopeHi float64
	// FitFromS and FitToS are the times of the first and last binned
	// samples the trend was fitted to, seconds since the run started (NaN
	// without a fit): the window whose arrivals the slope measured.
	FitFromS, FitToS float64
	// ProjectedS is the projected recovery time from the spike's end, with
	// ProjectedLoS and ProjectedHiS from the slope's bounds; +Inf when the
	// wait is not falling, NaN when it cannot be projected.
	ProjectedS, ProjectedLoS, ProjectedHiS float64
	// Reason says in words what decided, or what is still missing.
	Reason string
}

// Falling reports whether the slope's interval lies below zero.
func (j Judgement) Falling() bool { return j.SlopeHi < 0 }

// NotFalling reports whether the slope's interval excludes a falling wait.
func (j Judgement) NotFalling() bool { return j.SlopeLo >= 0 }

// Decided reports whether the slope's interval lies wholly below zero or
// wholly at or above it.
func (j Judgement) Decided() bool { return j.Falling() || j.NotFalling() }

// SlopeText is the wait's trend in words for a reason: the slope, its 95 %
// interval (s/s), the samples and the wait's source.
func (j Judgement) SlopeText() string {
	return fmt.Sprintf("%+.3f s/s (95 %% interval %+.3f to %+.3f) over %d samples of the %s wait", j.Trend.Slope, j.SlopeLo, j.SlopeHi, j.Trend.N, j.Source)
}

// Judge is the one verdict rule of a trigger test (docs/model.md, "What a
// trigger test measures", item 3): it fits the wait's trend after the spike
// on samples that no longer carry the spike, and makes a statistical
// statement about its slope, A·ρ − 1 in the failed state:
//
//   - trapped when the slope's 95 % interval excludes a falling wait;
//   - metastable when the wait falls, but even the interval's fastest end
//     projects a recovery beyond the budget or the observation horizon,
//     or when Final and the service is still failing with a falling wait;
//   - undecided otherwise: before the signal has settled, with too few
//     independent samples, while the interval straddles zero, or while it
//     falls fast enough to come back in time. An undecided Final judgement
//     means the evidence cannot tell: a run ends inconclusive.
func Judge(in JudgeInput, policy JudgePolicy) Judgement {
	p := policy.withDefaults()
	w := in.Wait
	nan := math.NaN()
	j := Judgement{Source: w.Source, DelayS: w.DelayS, SettledAtS: in.SpikeEndS + w.DelayS,
		SlopeLo: nan, SlopeHi: nan, ProjectedS: nan, ProjectedLoS: nan, ProjectedHiS: nan, FitFromS: nan, FitToS: nan}
	if w.Source == "" {
		j.Reason = "no wait signal: the scenario has no wait query, no ingress and served queries, and no tracers the service answered"
		return j
	}
	to := in.FailedToS
	if math.IsNaN(to) {
		to = math.Inf(1)
	}
	ts, ws := settledSamples(w, j.SettledAtS, to)
	j.Settled = len(ts) > 0
	if !j.Settled {
		j.Reason = fmt.Sprintf("waiting for the %s wait to settle: it carries the spike until %s after the spike's end", w.Source, FormatSeconds(w.DelayS))
		return j
	}
	res := w.ResolutionS
	if res <= 0 {
		res = 1
	}
	bt, bw := binned(ts, ws, j.SettledAtS, res)
	tr := fitTrend(bt, bw)
	j.Trend = tr
	if len(bt) > 0 {
		j.FitFromS, j.FitToS = bt[0], bt[len(bt)-1]
	}
	if tr.N < p.MinPoints {
		j.Reason = fmt.Sprintf("%d of %d independent samples of the settled %s wait (one per %s)", tr.N, p.MinPoints, w.Source, FormatSeconds(res))
		return j
	}
	h := TQuantile(tr.N-2) * math.Max(tr.SlopeStdErr, p.MinStdErr)
	j.SlopeLo, j.SlopeHi = tr.Slope-h, tr.Slope+h
	lastT := bt[len(bt)-1]
	elapsed, waitNow := lastT-in.SpikeEndS, math.Max(0, tr.At(lastT))
	if !math.IsNaN(in.Utilization) {
		j.ProjectedS = projectRecovery(elapsed, waitNow, tr.Slope, in.PatienceS, in.Utilization)
		// The fastest fall (SlopeLo) gives the earliest recovery.
		j.ProjectedLoS = projectRecovery(elapsed, waitNow, j.SlopeLo, in.PatienceS, in.Utilization)
		j.ProjectedHiS = projectRecovery(elapsed, waitNow, j.SlopeHi, in.PatienceS, in.Utilization)
	}
	slope := j.SlopeText()
	horizon := in.HorizonS - in.SpikeEndS
	switch {
	case j.NotFalling():
		j.Verdict, j.Reason = VerdictTrapped, "the wait is not falling after the spike: "+slope
	case j.Falling() && in.BudgetS > 0 && j.ProjectedLoS > in.BudgetS:
		j.Verdict = VerdictMetastable
		j.Reason = fmt.Sprintf("the wait is falling, but too slowly for the budget: %s; recovery projected at %s (at best %s) after the spike, budget %s",
			slope, FormatSeconds(j.ProjectedS), FormatSeconds(j.ProjectedLoS), FormatSeconds(in.BudgetS))
	case j.Falling() && j.ProjectedLoS > horizon:
		j.Verdict = VerdictMetastable
		j.Reason = fmt.Sprintf("the wait is falling, but too slowly to recover within the observation: %s; recovery projected at %s (at best %s) after the spike, observation %s",
			slope, FormatSeconds(j.ProjectedS), FormatSeconds(j.ProjectedLoS), FormatSeconds(horizon))
	case j.Falling() && in.Final:
		j.Verdict = VerdictMetastable
		j.Reason = "still failing at the end, the wait falling: " + slope
	case j.Falling():
		j.Reason = "the wait is falling: " + slope
	case in.Final:
		j.Reason = "the trend cannot tell a trap from a slow recovery: " + slope
	default:
		j.Reason = "the trend is not yet significant: " + slope
	}
	return j
}

// settledSamples returns the samples in [from, to), sorted by time.
func settledSamples(w WaitSeries, from, to float64) (ts, ws []float64) {
	type pt struct{ t, w float64 }
	var pts []pt
	for i := range w.T {
		t, v := w.T[i], w.W[i]
		if math.IsNaN(t) || math.IsNaN(v) || t < from || t >= to {
			continue
		}
		pts = append(pts, pt{t, v})
	}
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].t < pts[b].t })
	ts, ws = make([]float64, len(pts)), make([]float64, len(pts))
	for i, q := range pts {
		ts[i], ws[i] = q.t, q.w
	}
	return ts, ws
}
