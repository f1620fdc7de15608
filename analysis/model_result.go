package analysis

import "math"

// ModelResult is what one run of a model shows, the fluid model's
// (SimulateFluid) or the request-level model's (SimulateRequests).
type ModelResult struct {
	Verdict Verdict
	// RecoveryS is seconds from the spike's end until the queue is empty and
	// no attempt fails afterwards (for no-trigger, until the spike's backlog
	// drained); +Inf when the run ended failed.
	RecoveryS float64
	// ProjectedRecoveryS is, for a run that ended failed, the projection of
	// RecoveryS from the wait's final slope (+Inf when it is not falling).
	ProjectedRecoveryS float64
	// T0S is seconds from the spike's start to the first failed attempt;
	// NaN when no attempt failed.
	T0S        float64
	PeakWaitS  float64 // largest wait, seconds
	FinalWaitS float64 // wait at the end of the run, seconds
	// WaitSlope is the wait's trend at the end of the run, seconds per
	// second (A·ρ − 1 in the failed state).
	WaitSlope float64
	// LostWorkS is the first attempts that failed (timed out or refused),
	// in seconds of baseline demand.
	LostWorkS float64
	// FailedRequests counts logical requests that gave up.
	FailedRequests float64
	// TimedOut, Refused and Abandoned total attempts that timed out, were
	// refused, and work served after its client left.
	TimedOut, Refused, Abandoned float64
	// AmplificationFailed is A_fail: work arriving at the service per first
	// attempt while every attempt fails, away from the edges of the failed
	// window; zero when the run never settled into a failed state.
	AmplificationFailed float64
	// SpikeStartS, SpikeEndS and EndS are seconds from the start of the run.
	SpikeStartS, SpikeEndS, EndS float64
	// Timeline has one row per sample (FluidConfig.SampleS,
	// RequestConfig.SampleS), the last one cut at EndS.
	Timeline []TimelineRow

	// The request-level model only (zero for the fluid model):

	// Seed is the run's seed.
	Seed uint64
	// Counts are the run's totals, each attempt counted once.
	Counts RequestCounts
	// CollapsedAtS is when the wait passed CollapseWaitS (seconds from the
	// start); NaN when it did not, and for the fluid model.
	CollapsedAtS float64
	// Truncated says the run ended early because more than MaxPending
	// attempts were waiting (a storm the model stopped following).
	Truncated bool
}

// Collapsed reports whether the run ended with the wait past the request
// model's CollapseWaitS.
func (r ModelResult) Collapsed() bool { return !math.IsNaN(r.CollapsedAtS) }

// rowCounts are what a model counts over one row of its timeline: totals
// over the row's span, in attempts (work for served and abandoned).
type rowCounts struct {
	// attempts are client attempts arriving by attempt number: [0] first
	// attempts, [i] retry i.
	attempts []float64
	// refused are attempts the admission bound turned away; timedOut
	// admitted attempts whose client gives up before service;
	// firstRefused and firstTimedOut the first attempts among them.
	refused, timedOut           float64
	firstRefused, firstTimedOut float64
	dropped                     float64 // retries the budget did not allow
	served, abandoned           float64 // work finished; of it, after its client gave up
	goodput                     float64 // first attempts answered in time
	gaveUp                      float64 // logical requests whose every attempt failed
	wait, maxWait               float64 // w at the row's end and its largest value in the row, seconds
}

// reset zeroes the counts, keeping the attempts' storage.
func (c *rowCounts) reset() {
	a := c.attempts
	clear(a)
	*c = rowCounts{attempts: a}
}

// timelineRow turns the counts of the row [t, t + span) into a timeline
// row of per-second rates, the phase from the spike's start and end
// (seconds since the start of the run); attempts receives the rates by
// attempt number (len(c.attempts) elements).
func (c *rowCounts) timelineRow(t, span, spikeStartS, spikeEndS float64, attempts []float64) TimelineRow {
	m := UnknownRow()
	m.TS = t
	switch {
	case t < spikeStartS:
		m.Phase = "warmup"
	case t < spikeEndS:
		m.Phase = "spike"
	default:
		m.Phase = "observe"
	}
	inv := 1 / span
	all, retries := 0.0, 0.0
	for j, a := range c.attempts {
		attempts[j] = a * inv
		all += a
		if j > 0 {
			retries += a
		}
	}
	m.AttemptsPerS = attempts
	first := 0.0
	if len(c.attempts) > 0 {
		first = c.attempts[0]
	}
	m.Planned, m.Sent, m.Retries = first*inv, first*inv, retries*inv
	m.FirstOK, m.FirstDone = c.goodput*inv, first*inv
	m.FirstTimeouts, m.FirstErrors = c.firstTimedOut*inv, c.firstRefused*inv
	m.OK = math.Max(0, c.served-c.abandoned) * inv
	m.Timeouts, m.Rejected, m.Errors = c.timedOut*inv, c.refused*inv, 0
	m.Failed = c.gaveUp * inv
	m.IngressPerS, m.ServedPerS, m.AbandonedPerS = all*inv, c.served*inv, c.abandoned*inv
	m.RetriesDroppedPerS = c.dropped * inv
	m.WaitS, m.MaxWaitS = c.wait, c.maxWait
	return m
}
