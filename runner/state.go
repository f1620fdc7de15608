package runner

import (
	"context"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// run is the state of one trigger test while it goes.
type run struct {
	opts   Options
	s      *scenarios.Scenario
	plan   analysis.Document
	inputs analysis.PlanInputs
	drv    *loadgen.Driver
	mets   *metrics
	tw     *report.TimelineWriter

	rows  []analysis.MeasuredSecond
	start time.Time // wall time at which the driver's clock started

	phase                string
	spikeStart, spikeEnd float64 // seconds since the load started; NaN until known
	// retrySettle is how long after the spike, in seconds, the clients'
	// retry streams take to reach the failed state's rates.
	retrySettle float64
	waits       *waitSources
	resolution  map[string]float64 // seconds between independent samples of each wait source
	// judgement is the wait trend's latest judgement, on the source the
	// judge chose (choice says which and why).
	judgement analysis.Judgement
	choice    choice
	// cohorts are the driver's cohorts as they stood when the load stopped.
	cohorts []loadgen.Cohort

	verdict      analysis.Verdict
	reason       string
	recoveryS    float64 // from the spike's end; NaN until recovered
	judgedAt     float64 // seconds since the load started; NaN until judged trapped or metastable
	onTrap       *onTrapState
	interrupted  bool
	inconclusive string
	// inconclusiveErr is the sentinel of an inconclusive run (nil:
	// ErrBaselineFailing).
	inconclusiveErr error
	// targetRefused marks an inconclusive warmup whose failures were all
	// refused connections: the target is down (a harness error).
	targetRefused bool
	lastStatus    int // index of the last row reported as progress
}

func newRun(opts Options, plan analysis.Document, in analysis.PlanInputs, policy loadgen.RetryPolicy, drv *loadgen.Driver, mets *metrics, tw *report.TimelineWriter) *run {
	r := &run{
		opts: opts, s: opts.Scenario, plan: plan, inputs: in, drv: drv, mets: mets, tw: tw,
		phase: "warmup", spikeStart: math.NaN(), spikeEnd: math.NaN(), recoveryS: math.NaN(), judgedAt: math.NaN(), lastStatus: -1,
	}
	r.retrySettle = retrySettleS(r.s, policy)
	resolution := map[string]float64{waitTracers: 1}
	if q, ok := mets.signal("wait"); ok {
		resolution[waitService] = q.scrapeS
	}
	qi, _ := mets.signal("ingress")
	qs, _ := mets.signal("served")
	resolution[waitBacklog] = math.Max(qi.scrapeS, qs.scrapeS)
	r.resolution = resolution
	r.waits = newWaitSources(waitDelays(r.retrySettle, mets.signals(), r.s.Client.Tracers != nil), resolution, r.s.Service.Capacity)
	return r
}

// elapsed is the driver's clock in seconds.
func (r *run) elapsed() float64 { return r.drv.Elapsed().Seconds() }

// collect turns every second the driver has completed since the last call
// into a timeline row: the driver's counts and the service's metrics at the
// end of that second. Each row is appended to timeline.csv at once.
//
// Seconds that end after until (the moment the run stopped the driver;
// zero: no limit) are left out: attempts the harness cancelled there are
// not the service's failures.
func (r *run) collect(ctx context.Context, until time.Duration) error {
	secs := r.drv.TimelineSince(len(r.rows))
	if len(secs) == 0 {
		return nil
	}
	if r.start.IsZero() {
		r.start = time.Now().Add(-r.drv.Elapsed())
	}
	// A Ctrl-C does not lose the metrics of seconds already measured.
	ctx = context.WithoutCancel(ctx)
	for _, sec := range secs {
		if until > 0 && time.Duration(sec.Index+1)*time.Second > until {
			break
		}
		at := r.start.Add(time.Duration(sec.Index+1) * time.Second)
		row := measuredSecond(sec, r.mets.sample(ctx, at, r.opts.logf))
		row.Phase = r.phaseAt(row.TS + 0.5)
		r.waits.add(&row, r.spikeStart)
		r.rows = append(r.rows, row)
		if err := r.tw.Write(row); err != nil {
			return failf(KindHarness, "%w", err)
		}
	}
	return nil
}

// phaseAt names the phase a moment of the run belongs to.
func (r *run) phaseAt(t float64) string {
	switch {
	case math.IsNaN(r.spikeStart) || t < r.spikeStart:
		return "warmup"
	case t < r.spikeEnd:
		return "spike"
	case r.onTrap != nil && t >= r.onTrap.at:
		return "on_trap"
	}
	return "observe"
}

// measuredSecond converts one of the driver's seconds and the service's
// sample for it into a timeline row.
func measuredSecond(sec loadgen.Second, svc serviceSample) analysis.MeasuredSecond {
	fo, ro, to := sec.FirstOutcomes, sec.RetryOutcomes, sec.TracerOutcomes
	both := func(o loadgen.Outcome) float64 { return float64(fo[o] + ro[o]) }
	var firstDone int64
	for _, n := range fo {
		firstDone += n
	}
	summary := func(s loadgen.Summary, v float64) float64 {
		if s.Count == 0 {
			return math.NaN()
		}
		return v
	}
	return analysis.MeasuredSecond{
		TS:                     float64(sec.Index),
		Planned:                float64(sec.Planned),
		Sent:                   float64(sec.Sent),
		Retries:                float64(sec.Retries),
		Dropped:                float64(sec.Dropped),
		Refused:                float64(sec.Refused + sec.RetryRefused),
		FirstOK:                float64(fo[loadgen.OutcomeOK]),
		FirstDone:              float64(firstDone),
		OK:                     both(loadgen.OutcomeOK),
		Timeouts:               both(loadgen.OutcomeTimeout),
		Rejected:               both(loadgen.Outcome503) + both(loadgen.Outcome429),
		Errors:                 both(loadgen.Outcome5xx) + both(loadgen.Outcome4xx) + both(loadgen.OutcomeConnect) + both(loadgen.OutcomeOther),
		Connect:                both(loadgen.OutcomeConnect),
		FirstTimeouts:          float64(fo[loadgen.OutcomeTimeout]),
		FirstErrors:            float64(fo[loadgen.Outcome5xx] + fo[loadgen.Outcome503] + fo[loadgen.Outcome429] + fo[loadgen.Outcome4xx]),
		FirstConnect:           float64(fo[loadgen.OutcomeConnect]),
		Succeeded:              float64(sec.Succeeded),
		Failed:                 float64(sec.Failed),
		Pending:                float64(sec.Pending),
		InFlight:               float64(sec.InFlight),
		TracerWaitS:            summary(sec.TracerWait, sec.TracerWait.P50),
		LagP99S:                summary(sec.Lag, sec.Lag.P99),
		LatencyP50S:            summary(sec.Latency, sec.Latency.P50),
		LatencyP99S:            summary(sec.Latency, sec.Latency.P99),
		ErrorLatencyP10S:       summary(sec.ErrorLatency, sec.ErrorLatency.P10),
		ErrorLatencyP50S:       summary(sec.ErrorLatency, sec.ErrorLatency.P50),
		ErrorLatencyP90S:       summary(sec.ErrorLatency, sec.ErrorLatency.P90),
		TracerServed:           float64(to[loadgen.OutcomeOK] + to[loadgen.Outcome4xx]),
		TracerErrors:           float64(to[loadgen.Outcome5xx] + to[loadgen.Outcome503]),
		TracerErrorLatencyP50S: summary(sec.TracerErrorLatency, sec.TracerErrorLatency.P50),
		IngressPerS:            svc.ingress,
		ServiceFirstPerS:       svc.first,
		ServedPerS:             svc.served,
		AbandonedPerS:          svc.abandoned,
		WaitS:                  svc.wait,
		Pods:                   svc.pods,
		BacklogWaitS:           math.NaN(),
	}
}
