package analysis

import "math"

// ModelResult is what one run of a model shows, the fluid model's
// (fluid.Simulate) or the request-level model's (request.Simulate).
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
	// Timeline has one row per sample (fluid.Config.SampleS,
	// request.Config.SampleS), the last one cut at EndS.
	Timeline []TimelineRow

	// The request-level model only (zero for the fluid model):

	// Seed is the run's seed.
	Seed uint64
	// Counts are the run's totals, each attempt counted once.
	Counts RequestCounts
	// CollapsedAtS is when the wait passed request.Config.CollapseWaitS
	// (seconds from the start); NaN when it did not, and for the fluid model.
	CollapsedAtS float64
	// Truncated says the run ended early because more than
	// request.Config.MaxPending attempts were waiting (a storm the model
	// stopped following).
	Truncated bool
}

// Collapsed reports whether the run ended with the wait past the request
// model's collapse wait (request.Config.CollapseWaitS).
func (r ModelResult) Collapsed() bool { return !math.IsNaN(r.CollapsedAtS) }

// RowCounts are what a model counts over one row of its timeline: totals
// over the row's span, in attempts (work for served and abandoned).
type RowCounts struct {
	// Attempts are client attempts arriving by attempt number: [0] first
	// attempts, [i] retry i.
	Attempts []float64
	// Refused are attempts the admission bound turned away; TimedOut
	// admitted attempts whose client gives up before service;
	// FirstRefused and FirstTimedOut the first attempts among them.
	Refused, TimedOut           float64
	FirstRefused, FirstTimedOut float64
	Dropped                     float64 // retries the budget did not allow
	Served, Abandoned           float64 // work finished; of it, after its client gave up
	Goodput                     float64 // first attempts answered in time
	GaveUp                      float64 // logical requests whose every attempt failed
	Wait, MaxWait               float64 // w at the row's end and its largest value in the row, seconds
}

// Reset zeroes the counts, keeping the attempts' storage.
func (c *RowCounts) Reset() {
	a := c.Attempts
	clear(a)
	*c = RowCounts{Attempts: a}
}

// Row turns the counts of the row [t, t + span) into a timeline
// row of per-second rates, the phase from the spike's start and end
// (seconds since the start of the run); attempts receives the rates by
// attempt number (len(c.Attempts) elements).
func (c *RowCounts) Row(t, span, spikeStartS, spikeEndS float64, attempts []float64) TimelineRow {
	m := UnknownRow()
	m.TS = t
	switch {
	case t < spikeStartS:
		m.Phase = PhaseWarmup
	case t < spikeEndS:
		m.Phase = PhaseSpike
	default:
		m.Phase = PhaseObserve
	}
	inv := 1 / span
	all, retries := 0.0, 0.0
	for j, a := range c.Attempts {
		attempts[j] = a * inv
		all += a
		if j > 0 {
			retries += a
		}
	}
	m.AttemptsPerS = attempts
	first := 0.0
	if len(c.Attempts) > 0 {
		first = c.Attempts[0]
	}
	m.Planned, m.Sent, m.Retries = first*inv, first*inv, retries*inv
	m.FirstOK, m.FirstDone = c.Goodput*inv, first*inv
	m.FirstTimeouts, m.FirstErrors = c.FirstTimedOut*inv, c.FirstRefused*inv
	m.OK = math.Max(0, c.Served-c.Abandoned) * inv
	m.Timeouts, m.Rejected, m.Errors = c.TimedOut*inv, c.Refused*inv, 0
	m.Failed = c.GaveUp * inv
	m.IngressPerS, m.ServedPerS, m.AbandonedPerS = all*inv, c.Served*inv, c.Abandoned*inv
	m.RetriesDroppedPerS = c.Dropped * inv
	m.WaitS, m.MaxWaitS = c.Wait, c.MaxWait
	return m
}

// RequestCounts are a request-level run's totals, each attempt counted once.
type RequestCounts struct {
	// FirstAttempts are logical requests started; Attempts all client
	// attempts that arrived (first attempts and retries).
	FirstAttempts, Attempts int64
	// Succeeded are attempts answered within their timeout; TimedOut were
	// admitted and answered too late or never; Refused were turned away by
	// the admission bound. Attempts = Succeeded + TimedOut + Refused.
	Succeeded, TimedOut, Refused int64
	// Hidden are the copies hidden layers added; HiddenRefused of them were refused.
	Hidden, HiddenRefused int64
	// Served finished service within the run, Abandoned of them after their
	// client had gone; Dropped were discarded unserved (deadline
	// propagation); Queued were admitted but not finished when the run ended.
	// Attempts + Hidden − Refused − HiddenRefused = Served + Dropped + Queued.
	Served, Abandoned, Dropped, Queued int64
	// GaveUp are logical requests whose last allowed attempt failed; Pending
	// were still waiting for a timeout or a retry when the run ended.
	// FirstAttempts = Succeeded + GaveUp + Pending.
	GaveUp, Pending int64
}

// FailWindow measures A_fail for a model (ModelResult.AmplificationFailed):
// work arriving per first attempt over the steps of a failed state that lie
// at least settle steps from its edges, where the retry streams have
// settled. A step is the model's own: an integration step of the fluid
// model, a timeline row of the request-level model.
type FailWindow struct {
	settle      int
	run         int          // consecutive failing steps so far
	ring        [][2]float64 // last settle+1 steps: work arriving, first attempts
	pos         int
	work, first float64
}

// NewFailWindow returns an empty window that keeps settle steps from the
// edges of a failed state.
func NewFailWindow(settle int) *FailWindow {
	return &FailWindow{settle: settle, ring: make([][2]float64, settle+1)}
}

// Add counts one step: the work that arrived in it, its first attempts, and
// whether every attempt failed in it.
func (f *FailWindow) Add(work, first float64, failing bool) {
	f.ring[f.pos] = [2]float64{work, first}
	f.pos = (f.pos + 1) % len(f.ring)
	if !failing {
		f.run = 0
		return
	}
	f.run++
	if f.run > 2*f.settle {
		// The step settle steps back has settle failing steps on both sides.
		old := f.ring[f.pos]
		f.work += old[0]
		f.first += old[1]
	}
}

// Edge marks a change of demand: the retry streams settle again after it.
func (f *FailWindow) Edge() { f.run = 0 }

// Ratio is A_fail so far: work per first attempt over the settled failed
// steps; zero when there were none.
func (f *FailWindow) Ratio() float64 {
	if f.first <= 0 {
		return 0
	}
	return f.work / f.first
}

// ModelJudgePolicy is the verdict rule's policy for a model: three samples
// suffice, with the given floor on the slope's standard error.
func ModelJudgePolicy(minStdErr float64) JudgePolicy {
	return JudgePolicy{MinPoints: 3, MinStdErr: minStdErr}
}

// ModelVerdict is a model's verdict for a run that ended failed: the one
// rule's (Judge, which calls a wait still falling at the end metastable);
// where the rule stays undecided at the end, a slope zero within its
// interval or too short a watch, trapped: a model cannot wait for more
// evidence than its horizon gives, and the trap condition A·ρ ≥ 1 counts a
// flat wait as trapped (docs/model.md, "The trap").
func ModelVerdict(j Judgement) Verdict {
	if j.Verdict != "" {
		return j.Verdict
	}
	return VerdictTrapped
}

// WithModelResult fills a plan's document with what a model run showed: the
// `simulate` document of fluid.SimulatePlan and request.SimulatePlan.
func WithModelResult(doc Document, gate GateSpec, model string, res ModelResult) Document {
	doc.Kind, doc.Model = "simulate", model
	doc.RecoveryS = Num(res.RecoveryS)
	doc.Observation = &Observation{
		Source:              model,
		T0S:                 Num(res.T0S),
		PeakWaitS:           Num(res.PeakWaitS),
		FinalWaitS:          Num(res.FinalWaitS),
		WaitSlope:           Num(res.WaitSlope),
		ProjectedRecoveryS:  Num(res.ProjectedRecoveryS),
		LostWorkS:           Num(res.LostWorkS),
		TimedOut:            Num(res.TimedOut),
		Refused:             Num(res.Refused),
		Abandoned:           Num(res.Abandoned),
		FailedRequests:      Num(res.FailedRequests),
		AmplificationFailed: nonZero(res.AmplificationFailed),
		EndS:                res.EndS,
	}
	doc.Amplification.Measured = doc.Observation.AmplificationFailed
	if doc.Amplification.Measured != nil && doc.Amplification.Client > 0 {
		doc.Amplification.Hidden = Num(*doc.Amplification.Measured / doc.Amplification.Client)
	}
	// A simulation is a prediction throughout: where the model's service
	// never reached a failed state to measure, its A is the scenario's.
	a := Value(doc.Amplification.Measured)
	if math.IsNaN(a) {
		a = doc.Amplification.Predicted
	}
	c := Conclude(gate, Evidence{Verdict: res.Verdict, RecoveryS: res.RecoveryS, ProjectedRecoveryS: res.ProjectedRecoveryS, Amplification: a})
	doc.Verdict, doc.Gate = c.Verdict, c.Gate
	doc.Observation.ProjectedRecoveryS = Num(c.ProjectedRecoveryS)
	doc.Timeline = res.Timeline
	return doc
}

func nonZero(x float64) *float64 {
	if x == 0 {
		return nil
	}
	return Num(x)
}
