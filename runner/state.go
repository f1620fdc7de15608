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
	settle               float64 // seconds after the spike before the retry streams settle
	wait                 waitSignal

	verdict      analysis.Verdict
	reason       string
	recoveryS    float64 // from the spike's end; NaN until recovered
	trend        analysis.TrendVerdict
	judgedAt     float64 // seconds since the load started; NaN until judged trapped or metastable
	onTrap       *onTrapState
	interrupted  bool
	inconclusive string
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
	// The retry streams of the spike's attempts keep arriving for one
	// timeout plus backoff per retry after the spike ends; one scrape
	// interval more for the metrics to catch up.
	tau := r.s.Client.Timeout.Seconds()
	r.settle = float64(policy.MaxRetries) * tau
	for _, b := range meanBackoffs(policy) {
		r.settle += b
	}
	r.settle += time.Second.Seconds()
	if p := r.s.Prometheus; p != nil && p.ScrapeInterval > 0 {
		r.settle += p.ScrapeInterval.Seconds() - 1
	}
	if policy.Budget != nil {
		// A budget counts first attempts over its window: until the spike's
		// have left it, the retries allowed are the spike's.
		w := policy.BudgetWindow
		if w <= 0 {
			w = loadgen.DefaultBudgetWindow
		}
		r.settle += w.Seconds()
	}
	r.wait = newWaitSignal(mets, r.s)
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
		r.wait.add(row, r)
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
	fo, ro := sec.FirstOutcomes, sec.RetryOutcomes
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
		TS:               float64(sec.Index),
		Planned:          float64(sec.Planned),
		Sent:             float64(sec.Sent),
		Retries:          float64(sec.Retries),
		Dropped:          float64(sec.Dropped),
		Refused:          float64(sec.Refused + sec.RetryRefused),
		FirstOK:          float64(fo[loadgen.OutcomeOK]),
		FirstDone:        float64(firstDone),
		OK:               both(loadgen.OutcomeOK),
		Timeouts:         both(loadgen.OutcomeTimeout),
		Rejected:         both(loadgen.Outcome503) + both(loadgen.Outcome429),
		Errors:           both(loadgen.Outcome5xx) + both(loadgen.OutcomeConnect) + both(loadgen.Outcome4xx) + both(loadgen.OutcomeOther),
		Connect:          both(loadgen.OutcomeConnect),
		Succeeded:        float64(sec.Succeeded),
		Failed:           float64(sec.Failed),
		Pending:          float64(sec.Pending),
		InFlight:         float64(sec.InFlight),
		TracerWaitS:      summary(sec.TracerWait, sec.TracerWait.P50),
		LagP99S:          summary(sec.Lag, sec.Lag.P99),
		LatencyP50S:      summary(sec.Latency, sec.Latency.P50),
		LatencyP99S:      summary(sec.Latency, sec.Latency.P99),
		IngressPerS:      svc.ingress,
		ServiceFirstPerS: svc.first,
		ServedPerS:       svc.served,
		AbandonedPerS:    svc.abandoned,
		WaitS:            svc.wait,
		Pods:             svc.pods,
	}
}
