package runner

import (
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/report"
)

// run is the state of one trigger test while it goes.
type run struct {
	opts Options
	test *convert.Test
	// spec is test.Run, inputs test.Plan, and plan the model's
	// prediction from them: the scenario reaches the run through these
	// and test.Driver only.
	spec   convert.Run
	plan   analysis.Document
	inputs analysis.PlanInputs
	drv    load // one in-process driver or a fleet of agents
	mets   *metrics
	tw     *report.TimelineWriter
	// timelineFailed is set when a row could not be written to timeline.csv.
	timelineFailed bool

	// ref is the run's referee: every row goes to it, and it judges.
	ref   *referee.Referee
	start time.Time // wall time at which the driver's clock started

	// phase is the run's phase as the gauge and the progress line show it.
	phase analysis.Phase
	// over is set once the referee has its verdict: the loop stops.
	over   bool
	onTrap *onTrapState
	// endHorizon says why the run ended without the referee's word (the
	// scenario's max_duration, the schedule's end); "" otherwise.
	endHorizon  string
	interrupted bool
	// cohorts are the driver's cohorts as they stood when the load stopped.
	cohorts []loadgen.Cohort
	// harnessInconclusive is a harness failure that leaves the run without
	// a verdict (an agent lost, a fault that did not start), with its
	// sentinel.
	harnessInconclusive    string
	harnessInconclusiveErr error
	lastStatus             int // index of the last row reported as progress

	// sampler reads the metrics off the loop; pending are the seconds
	// waiting for them (at most samplerQueue + the seconds of one query
	// timeout).
	sampler *sampler
	pending []pendingSecond
	// brakes are the stop conditions and the abort file; stopped is the
	// brake that stopped the run (nil: none did).
	brakes  *brakes
	stopped *brakeEvent
	// fleet is the coordinator of a run spread over agents (nil: one
	// in-process driver).
	fleet *fleet.Coordinator
	// redact hides the scenario's sensitive values from what the run writes.
	redact redactor
	// fault is the capacity trigger (nil: none); faultStarted delivers its
	// start command's end (run seconds and error), faultStartS and
	// faultStopS are when its start ended and its stop began, run seconds
	// (NaN until then).
	// baseline is gate.baseline's run, read before any load; nil without one.
	baseline *comparedBaseline
	// phases is the trigger_phase gauge (nil in tests that build a run by hand).
	phases                  *phaseMetric
	fault                   *faultRun
	faultStarted            chan faultStartResult
	faultStartS, faultStopS float64
}

func newRun(opts Options, drv load, mets *metrics, tw *report.TimelineWriter, odds *analysis.TrapProbability) *run {
	t := opts.Test
	plan := analysis.Plan(t.Plan)
	plan.TrapProbability = odds
	plan = asRecorded(plan)
	r := &run{
		opts: opts, test: t, spec: t.Run, plan: plan, inputs: t.Plan, drv: drv, mets: mets, tw: tw,
		phase: analysis.PhaseWarmup, lastStatus: -1,
		faultStartS: math.NaN(), faultStopS: math.NaN(),
	}
	if f := t.Run.Fault; f != nil {
		stateDir := opts.StateDir
		if stateDir == "" {
			stateDir = DefaultStateDir()
		}
		r.fault = newFaultRun(*f, opts.OutDir, stateDir, opts.logf)
		r.fault.guardArgv = opts.FaultGuard
		r.faultStarted = make(chan faultStartResult, 1)
	}
	r.ref = referee.New(plan, refereeConfig(opts, t, mets))
	return r
}

// refereeConfig is what the referee knows of the run before the first row.
func refereeConfig(opts Options, t *convert.Test, mets *metrics) analysis.RefereeConfig {
	spec := t.Run
	cfg := analysis.RefereeConfig{
		TargetURL:       spec.TargetURL,
		Gate:            t.Plan.Gate,
		SuccessRatio:    spec.Recovery.SuccessRatio,
		HoldS:           spec.Recovery.Hold.Seconds(),
		WarmupS:         spec.Warmup.Seconds(),
		SpikeS:          spec.SpikeDuration.Seconds(),
		ObserveS:        spec.Observe.Seconds(),
		RetrySettleS:    t.RetrySettleS,
		Metrics:         mets != nil,
		JudgeHeldDemand: opts.JudgeHeldDemand,
	}
	if f := spec.Fault; f != nil {
		cfg.FaultS = f.Duration.Seconds()
	}
	if tr := t.Driver.Tracers; tr != nil {
		cfg.Tracers, cfg.TracerTimeoutS = true, tr.Timeout.Seconds()
	}
	for _, q := range mets.signals() {
		cfg.Signals = append(cfg.Signals, q.Info(t.RetrySettleS))
	}
	if ot := spec.OnTrap; ot != nil {
		cfg.OnTrap = &analysis.OnTrapRule{Action: ot.Action.String(), RatePerS: ot.Rate, ObserveS: ot.Observe.Seconds()}
	}
	return cfg
}

// elapsed is the driver's clock in seconds.
func (r *run) elapsed() float64 { return r.drv.Elapsed().Seconds() }

// collect takes every second the driver has completed since the last call
// and asks the sampler for its metrics, then writes every second that is
// ready as a timeline row (flush). It never waits: a second whose metrics
// are late stays pending until they come or its deadline passes.
//
// Seconds that end after until (the moment the run stopped the driver;
// zero: no limit) are left out: attempts the harness cancelled there are
// not the service's failures.
func (r *run) collect(until time.Duration, judge bool) error {
	r.takeSamples()
	secs := r.drv.TimelineSince(len(r.ref.Rows()) + len(r.pending))
	if len(secs) > 0 && r.start.IsZero() {
		r.start = time.Now().Add(-r.drv.Elapsed())
	}
	for _, sec := range secs {
		if until > 0 && time.Duration(sec.Index+1)*time.Second > until {
			break
		}
		at := r.start.Add(time.Duration(sec.Index+1) * time.Second)
		p := pendingSecond{sec: sec, due: at.Add(r.sampleWait())}
		if r.sampler != nil {
			p.asked = r.sampler.ask(sampleRequest{index: sec.Index, at: at, due: p.due})
		}
		r.pending = append(r.pending, p)
	}
	return r.flush(time.Now(), false, judge)
}

// pendingSecond is a second the driver completed whose row waits for its
// metrics.
type pendingSecond struct {
	sec   loadgen.Second
	due   time.Time     // written without metrics after this
	asked bool          // the sampler has it
	res   *sampleResult // its answer, once come
}

// sampleWait is how long after a second's end its row waits for the
// service's metrics: one query timeout.
func (r *run) sampleWait() time.Duration {
	if r.mets == nil {
		return 0
	}
	return r.mets.timeout
}

// takeSamples attaches the sampler's answers to their pending seconds.
func (r *run) takeSamples() {
	if r.sampler == nil {
		return
	}
	for {
		res, ok := r.sampler.take()
		if !ok {
			return
		}
		r.attach(res)
	}
}

// attach gives an answer of the sampler to its pending second.
func (r *run) attach(res sampleResult) {
	for i := range r.pending {
		if r.pending[i].sec.Index == res.index {
			r.pending[i].res = &res
			return
		}
	}
}

// flush writes the pending seconds, in order, whose metrics have come or
// whose deadline has passed at now (all of them when force), each as a row
// appended to timeline.csv at once and handed to the referee; with judge,
// the referee judges each row, and the run acts on its decisions.
func (r *run) flush(now time.Time, force, judge bool) error {
	for len(r.pending) > 0 {
		p := r.pending[0]
		if !force && r.sampler != nil && p.asked && p.res == nil && now.Before(p.due) {
			return nil
		}
		r.pending = r.pending[1:]
		var vals []float64
		var errs []error
		if p.res != nil {
			vals, errs = p.res.vals, p.res.errs
		}
		svc, missing := r.mets.record(vals, errs, r.opts.logf)
		row := measuredSecond(p.sec, svc)
		if r.mets != nil {
			row.MetricsMissing = float64(missing)
		}
		row.Phase = r.phaseAt(row.TS + 0.5)
		row.Fault = r.faultHeldAt(row.TS + 0.5)
		row = r.ref.Add(row)
		if err := r.tw.Write(row); err != nil {
			r.timelineFailed = true
			return failf(KindHarness, "%w", err)
		}
		if judge && !r.over {
			r.act(r.ref.Step(row.TS+1), row.TS+1)
		}
	}
	return nil
}

// drain collects the seconds measured before until and waits for their
// metrics, each at most until its deadline, or until hurry is closed (a
// second interrupt): then what is pending is written without them.
func (r *run) drain(until time.Duration, hurry <-chan struct{}) error {
	if err := r.collect(until, false); err != nil {
		return err
	}
	for len(r.pending) > 0 {
		var results <-chan sampleResult
		if r.sampler != nil {
			results = r.sampler.results
		}
		wait := time.NewTimer(time.Until(r.pending[0].due))
		force := false
		select {
		case res := <-results:
			r.sampler.outstanding--
			r.attach(res)
		case <-wait.C:
		case <-hurry:
			force = true
		}
		wait.Stop()
		if err := r.flush(time.Now(), force, false); err != nil {
			return err
		}
	}
	return nil
}

// faultHeldAt is 1 when the run's fault held at t (its start ended, its
// stop not begun), 0 when it did not, NaN without a fault.
func (r *run) faultHeldAt(t float64) float64 {
	switch {
	case r.fault == nil:
		return math.NaN()
	case t >= r.faultStartS && (math.IsNaN(r.faultStopS) || t < r.faultStopS):
		return 1
	}
	return 0
}

// phaseAt names the phase a moment of the run belongs to.
func (r *run) phaseAt(t float64) analysis.Phase {
	start, end := r.ref.Spike()
	switch {
	case math.IsNaN(start) || t < start:
		return analysis.PhaseWarmup
	case t < end:
		return analysis.PhaseSpike
	case t >= r.ref.OnTrapAt():
		return analysis.PhaseOnTrap
	}
	return analysis.PhaseObserve
}

// measuredSecond is one of the driver's seconds (convert.DriverRow) with
// the service's sample for it.
func measuredSecond(sec loadgen.Second, svc serviceSample) analysis.TimelineRow {
	row := convert.DriverRow(sec)
	row.IngressPerS, row.ServiceFirstPerS, row.ServedPerS = svc.ingress, svc.first, svc.served
	row.AbandonedPerS, row.WaitS, row.Pods = svc.abandoned, svc.wait, svc.pods
	return row
}

// comparedBaseline is gate.baseline's run: its result document and its
// timeline (nil rows when it has none), read before any load.
type comparedBaseline struct {
	path string // as gate.baseline names it
	doc  analysis.Document
	rows []analysis.TimelineRow
}
