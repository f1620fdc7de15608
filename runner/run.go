package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/report"
)

// ResultFile is the name of the result document in a run's folder.
const ResultFile = report.ResultFile

// Run performs one trigger test end to end (docs/design.md, "Data flow",
// run; its guarantees: "The run loop" there and docs/safety.md): preflight
// (allowlist, Prometheus and every query, before any load), warmup at
// baseline, the spike, observation until the service has recovered and
// held, is judged trapped or metastable, or the horizon; the optional
// on_trap action; then the gate. It appends timeline.csv as it measures and
// writes result.json and the reports (report.html, timeline.png and .svg,
// report.md, junit.xml) at the end, also when a signal stops it (then the
// error is an *Error of KindInterrupted and the Result is still valid).
func Run(ctx context.Context, opts Options) (*Result, error) {
	red := newRedactor(append(credentialTexts(opts.Test.Run, opts.getenv), opts.Test.Run.Secrets...))
	opts.Logf = red.logf(opts.Logf)
	res, err := run1(ctx, opts, red)
	return res, red.Err(err)
}

func run1(ctx context.Context, opts Options, red redactor) (*Result, error) {
	spec := opts.Test.Run
	if err := checkTarget(spec); err != nil {
		return nil, err
	}
	if err := spec.CheckConsent(opts.Consent); err != nil {
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w; nothing was sent", err)}
	}
	if f := spec.Fault; f != nil && !opts.Force {
		stateDir := opts.StateDir
		if stateDir == "" {
			stateDir = DefaultStateDir()
		}
		if err := CheckPendingFault(stateDir, f.Target); err != nil {
			return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w; nothing was sent", err)}
		}
	}
	var baseline *comparedBaseline
	if b := spec.Baseline; b != nil {
		doc, rows, err := report.ReadRun(b.Path)
		if err != nil {
			return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("gate.baseline: %w; nothing was sent", err)}
		}
		baseline = &comparedBaseline{path: b.Path, doc: doc, rows: rows}
	}
	odds := opts.TrapProbability
	if odds == nil {
		// The model's odds, computed as plan computes them (the same
		// seeds and runs: the same figure), before anything is
		// started: the preflight stays next to the load.
		if opts.Progress != nil {
			opts.Progress(Status{Phase: analysis.PhasePreflight, SuccessRatio: math.NaN(), WaitS: math.NaN(), Note: "the model's odds: seeded runs of the request model"})
		}
		var err error
		if odds, err = opts.Test.TrapProbability(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
			}
			return nil, failf(KindHarness, "the model's odds: %w", err)
		}
	}
	lock, err := prepareOutDir(opts.OutDir, opts.Overwrite, spec.Metrics != nil && spec.Metrics.Embedded)
	if err != nil {
		if errors.Is(err, ErrOutExists) || errors.Is(err, ErrOutLocked) {
			return nil, &Error{Kind: KindUsage, Err: err}
		}
		return nil, failf(KindHarness, "output folder: %w", err)
	}
	// Held until the run has written its last file.
	defer lock.Unlock()
	// The copy the run keeps has its sensitive variables' defaults
	// replaced (scenarios.Scenario.KeptSource), and every secret.
	src := opts.Test.Scenario.KeptSource
	if len(src) == 0 {
		src = opts.Test.Scenario.Source
	}
	if len(src) > 0 {
		if err := writeScenarioCopy(opts.OutDir, src, spec.Secrets); err != nil {
			return nil, failf(KindHarness, "scenario copy: %w", err)
		}
	}
	// A gRPC call's message types, fetched from the server's reflection
	// service when the scenario says so, before the driver needs them.
	if opts.Test.HasGRPC() {
		if _, err := opts.Test.ResolveGRPC(ctx); err != nil {
			return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("grpc descriptors: %w; no load was sent", err)}
		}
	}
	reg := prometheus.NewRegistry()
	phases := newPhaseMetric()
	var drv load
	var coord *fleet.Coordinator
	if opts.Fleet != nil {
		c, err := startFleet(ctx, opts)
		if c != nil {
			defer closeFleet(ctx, c, opts.logf)
		}
		if err != nil {
			return nil, err
		}
		drv, coord = c, c
	} else {
		cfg := opts.Test.Driver
		cfg.Seed, cfg.Transport = max(opts.Seed, 1), opts.Transport
		cfg.Registerer = reg
		d, err := loadgen.NewDriver(cfg)
		if err != nil {
			return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("driver: %w", err)}
		}
		drv = inProcess{d}
	}
	// The default is lowered to the descriptor limit silently; a value the
	// scenario chose is not.
	if b := drv.Bounds(); b.Clamped && spec.MaxInFlightChosen {
		opts.logf("%s", b.Reason)
	}
	if opts.Progress != nil {
		opts.Progress(Status{Phase: analysis.PhasePreflight, SuccessRatio: math.NaN(), WaitS: math.NaN(), Note: "checking Prometheus and the queries"})
	}
	// A TLS setup the target refuses stops the run before any load.
	if err := loadgen.CheckTLS(ctx, opts.Test.Driver); err != nil {
		return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %v; nothing was sent", ErrTargetTLS, err)}
	}
	// The driver's metrics are served before the preflight, so that a
	// remote Prometheus scraping them knows the target when the run asks.
	if opts.MetricsListen != "" {
		_, stop, err := serveMetrics(opts.MetricsListen, metricsHandler(drv, reg, phases.reg), opts.logf)
		if err != nil {
			return nil, failf(KindHarness, "driver metrics: %w", err)
		}
		defer stop()
	}
	mets, err := openMetrics(ctx, opts, prometheus.Gatherers{reg, phases.reg})
	if err != nil {
		return nil, err
	}
	defer mets.close()
	brk, err := newBrakes(opts, mets)
	if err != nil {
		return nil, err
	}
	defer brk.stop()
	// The brakes hold before any load: one that fires now sends nothing.
	if ev := brk.check(ctx); ev != nil {
		return nil, &Error{Kind: KindStopped, Err: fmt.Errorf("%w before any load: %s; nothing was sent", ErrStopped, ev.reason)}
	}
	if ctx.Err() != nil {
		return nil, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	}
	f, err := os.Create(filepath.Join(opts.OutDir, report.TimelineFile))
	if err != nil {
		return nil, failf(KindHarness, "timeline: %w", err)
	}
	defer f.Close()
	tw, err := report.NewTimelineWriter(f, requestNames(opts.Test.Driver.Mix)...)
	if err != nil {
		return nil, failf(KindHarness, "%w", err)
	}
	r := newRun(opts, drv, mets, tw, odds)
	r.phases = phases
	phases.set(r.phase)
	r.brakes, r.redact, r.fleet, r.baseline = brk, red, coord, baseline
	if r.fault != nil {
		r.fault.red = red
	}
	r.warnShortObserve()
	return r.execute(ctx)
}

// warnShortObserve says, before any load, when the observation is too short
// for the signals the run has to show a trap (their delays, read from the
// queries and the server), or to measure A_fail: a service that does not
// recover within it ends inconclusive.
func (r *run) warnShortObserve() {
	observe := r.spec.Observe.Seconds()
	settle := r.test.RetrySettleS
	delays := convert.WaitDelays(settle, r.mets.signals(), r.test.Driver.Tracers != nil)
	if need, note := convert.SoonestJudgement(delays, convert.Resolutions(r.mets.signals()), settle); need > observe {
		r.opts.logf("observe = %s is shorter than the %s after the spike a trap takes to show (%s): a service that does not recover within observe will end inconclusive; lengthen observe",
			r.spec.Observe, analysis.FormatSeconds(need), note)
	} else if math.IsNaN(need) {
		r.opts.logf("the scenario gives no wait signal (no wait query, no ingress and served queries, no tracers): a service that does not recover within observe will end inconclusive")
	}
	if r.mets.has("ingress") && r.ref.SettledAfterS() > observe {
		r.opts.logf("observe = %s is shorter than the %s after the spike the ingress query needs to measure A_fail in a settled failed state",
			r.spec.Observe, analysis.FormatSeconds(r.ref.SettledAfterS()))
	}
}

// checkTarget refuses to send anything to a host outside allow_hosts
// (convert.Run.CheckSends: the target URL's, a Host or :authority header's,
// a scrape URL's). A trigger test overloads its target on purpose: the
// scenario reader checks all this too; the runner checks again because it
// is the one that sends.
func checkTarget(spec convert.Run) error {
	refused, err := spec.CheckSends()
	switch {
	case refused != "":
		return &Error{Kind: KindUsage, Err: fmt.Errorf("%w: %s; nothing was sent", ErrNotAllowed, refused)}
	case err != nil:
		return &Error{Kind: KindUsage, Err: err}
	}
	return nil
}

// metricsHandler serves the load's trigger_* metrics with trigger_phase:
// the in-process driver's collectors are in reg; a fleet's are on its
// agents, so it serves the phase alone.
func metricsHandler(drv load, reg, phases *prometheus.Registry) http.Handler {
	if _, ok := drv.(inProcess); ok {
		return promhttp.HandlerFor(prometheus.Gatherers{reg, phases}, promhttp.HandlerOpts{})
	}
	return promhttp.HandlerFor(phases, promhttp.HandlerOpts{})
}

// tickEvery is how often the run loop looks at its brakes, its clock and
// the driver's new seconds.
const tickEvery = 200 * time.Millisecond

// execute drives the phases; see Run.
//
// Nothing in the loop waits on anything outside the process: the metrics
// are read by the sampler and the brakes by their watchers, off the loop.
// Each tick looks first at the interrupt, the brakes and the time limit,
// then takes the new seconds and moves the phases.
func (r *run) execute(ctx context.Context) (*Result, error) {
	if r.fault != nil {
		// The fault is put back within a second of an interrupt (the
		// watcher), when the loop ends for any reason, and when it panics.
		loopDone := make(chan struct{})
		defer close(loopDone)
		go r.fault.watch(ctx, loopDone)
		defer func() {
			if p := recover(); p != nil {
				_ = r.fault.stop("the run panicked")
				panic(p)
			}
		}()
	}
	driverCtx, stopDriver := context.WithCancel(context.WithoutCancel(ctx))
	defer stopDriver()
	driverDone := make(chan error, 1)
	r.sampler = startSampler(r.mets)
	defer r.sampler.stop()
	rereads := r.mets.startReread()
	defer rereads.stop()
	r.brakes.start()
	r.splitPhase(0, analysis.PhaseWarmup)
	go func() { driverDone <- r.drv.Run(driverCtx) }()
	deadline := time.Now().Add(r.spec.MaxDuration)
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()

	var runErr error
	for !r.braked(ctx, deadline, driverDone) {
		r.applyRereads(rereads)
		if err := r.collect(0, true); err != nil {
			runErr = err
			break
		}
		if r.step() {
			break
		}
		select {
		case <-ctx.Done():
		case <-r.brakes.woken():
		case <-tick.C:
		}
	}
	stoppedAt := r.drv.Elapsed()
	if r.fault != nil && math.IsNaN(r.faultStopS) {
		// Put the fault back now, before the driver's stop and the reports.
		r.faultStopS = stoppedAt.Seconds()
		go func() { _ = r.fault.stop("the run ended") }()
	}
	// The cohorts as they stand before the stop cuts the open requests short.
	r.cohorts = r.drv.Cohorts(0)
	stopDriver()
	r.brakes.stop()
	// An interrupt that came while the last step ended the run still counts.
	if ctx.Err() != nil && !r.interrupted {
		r.interrupted = true
	}
	select {
	case err := <-driverDone:
		r.agentLost(err)
	case <-r.opts.Hurry:
	case <-time.After(5 * time.Second):
		r.opts.logf("the driver did not stop within 5 s")
	}
	r.stopOnTrap()
	// The seconds measured before the stop; the partial one the stop cut
	// (its in-flight attempts cancelled by the harness) is left out.
	if err := r.drain(stoppedAt, r.opts.Hurry); err != nil && runErr == nil {
		runErr = err
	}
	out := r.ref.Settle(analysis.JudgingEnd{AtS: r.elapsed(), Horizon: r.endHorizon, Interrupted: r.interrupted, Stopped: r.stoppedReason(),
		Inconclusive: r.harnessInconclusive, InconclusiveKind: harnessKind(r.harnessInconclusiveErr), Cohorts: cohorts(r.cohorts)})
	switch {
	case r.interrupted:
		runErr = &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	case r.stopped != nil:
		runErr = &Error{Kind: KindStopped, Err: fmt.Errorf("%w: %s", ErrStopped, r.stopped.reason)}
	case out.Inconclusive != "" && runErr != nil:
	case out.Kind == referee.KindTargetRefused:
		runErr = &Error{Kind: KindHarness, Err: fmt.Errorf("%w: %s", ErrTargetRefused, out.Inconclusive)}
	case out.Inconclusive != "":
		runErr = &Error{Kind: KindInconclusive, Err: fmt.Errorf("%w: %s", inconclusiveSentinel(out.Kind, r.harnessInconclusiveErr), out.Inconclusive)}
	}
	if r.fault != nil {
		_ = r.fault.stop("the run ended") // waits for the stop under way
		if msg := r.fault.failure(); msg != "" {
			r.opts.logf("%s", msg)
			runErr = &Error{Kind: KindHarness, Err: fmt.Errorf("%w: %s", ErrFaultNotRestored, msg)}
		}
	}
	res := &Result{Document: r.document(), Timeline: r.ref.Rows(), OutDir: r.opts.OutDir, Start: r.start}
	r.compareWithBaseline(&res.Document)
	r.redact.Doc(&res.Document)
	r.phases.set(analysis.PhaseDone)
	if r.opts.Progress != nil {
		r.opts.Progress(r.status(analysis.PhaseDone))
	}
	if !r.timelineFailed {
		res.Written = append(res.Written, report.TimelineFile)
	}
	if err := report.WriteResult(filepath.Join(r.opts.OutDir, ResultFile), res.Document); err != nil {
		r.opts.logf("%s not written: %v", ResultFile, err)
		if runErr == nil {
			runErr = failf(KindHarness, "%w", err)
		}
	} else {
		res.Written = append(res.Written, ResultFile)
	}
	written, err := writeReports(r.opts.OutDir, res.Document, res.Timeline, r.baseline, r.opts.Hurry)
	res.Written = append(res.Written, written...)
	if err != nil {
		// The result and the timeline are written; a report that could not
		// be drawn is a note, and `trigger report DIR` can try again.
		r.opts.logf("reports: %v", err)
	}
	if n := r.spec.Notify; n != nil {
		r.opts.logf("%s", r.redact.String(notify(n, res.Document, r.opts.OutDir, res.Written, r.opts.Hurry)))
	}
	return res, runErr
}

// reportBudget bounds how long a run waits for its reports once its result
// is written: the charts' inputs are bounded (report.TimelineChart leaves
// absurd values out), so they take a second or two; should one take
// longer, the run's exit does not wait for it.
const reportBudget = time.Minute

// writeReports draws the reports (report.WriteAll) and, when the run was
// compared with a baseline, compare.html; it waits for them at most
// reportBudget, or until hurry is closed (a second interrupt). written
// names the files actually written, also when err is not nil.
func writeReports(dir string, doc analysis.Document, rows []analysis.TimelineRow, base *comparedBaseline, hurry <-chan struct{}) (written []string, err error) {
	// A run that stops waiting for its reports closes the gate: the
	// renderer may finish drawing, but writes nothing into the folder
	// after the run has returned.
	gate := &report.Gate{}
	done := make(chan error, 1)
	go func() {
		err := report.WriteAllGated(gate, dir, doc, rows)
		if base != nil && doc.Comparison != nil {
			page := report.CompareRuns{Comparison: *doc.Comparison, Base: base.doc, Cand: doc, BaseRows: base.rows, CandRows: rows,
				BaseName: base.path, CandName: dir}
			err = errors.Join(err, report.WriteFileGated(gate, dir, report.CompareHTMLFile, func(w io.Writer) error { return report.WriteCompareHTML(w, page) }))
		}
		done <- err
	}()
	t := time.NewTimer(reportBudget)
	defer t.Stop()
	select {
	case err := <-done:
		return gate.Written(), err
	case <-t.C:
		gate.Close()
		return gate.Written(), fmt.Errorf("not all drawn within %s; `trigger report %s` draws them again", reportBudget, dir)
	case <-hurry:
		gate.Close()
		return gate.Written(), fmt.Errorf("not all drawn: interrupted again; `trigger report %s` draws them again", dir)
	}
}

// applyRereads takes the scrape intervals read again once a signal's
// series appeared, and tells the referee: its wait sources' delays and
// resolutions follow.
func (r *run) applyRereads(rr *rereader) {
	for {
		u, ok := rr.take()
		if !ok {
			return
		}
		old := r.mets.sigs[u.index]
		r.mets.sigs[u.index] = u.sig
		r.ref.Rescraped(u.sig.Name, u.sig.ScrapeS, u.sig.ScrapeFrom)
		r.opts.logf("prometheus query %s: its series appeared; scrape interval %s (was %s): %s", u.sig.Name,
			analysis.FormatSeconds(u.sig.ScrapeS), analysis.FormatSeconds(old.ScrapeS), u.sig.ScrapeFrom)
	}
}

// stoppedReason is the reason of the brake that stopped the run ("" when
// none did).
func (r *run) stoppedReason() string {
	if r.stopped == nil {
		return ""
	}
	return r.stopped.reason
}

// harnessKinds name the harness failures that leave a run without a
// verdict, as the referee's record keeps them (JudgingEnd.InconclusiveKind).
var harnessKinds = map[string]error{"agent_lost": ErrAgentLost, "fault_start": ErrFaultStart}

// harnessKind names a harness failure's sentinel for the referee's record.
func harnessKind(err error) string {
	if err == nil {
		return ""
	}
	for kind, sentinel := range harnessKinds {
		if errors.Is(err, sentinel) {
			return kind
		}
	}
	return "harness"
}

// inconclusiveSentinel is the sentinel error of an inconclusive outcome
// of the referee's kind (a harness failure keeps its own).
func inconclusiveSentinel(kind string, harness error) error {
	switch kind {
	case referee.KindCredentialsRefused:
		return ErrCredentialsRefused
	case referee.KindClientErrors:
		return ErrClientErrors
	case referee.KindMetricsMissing:
		return ErrMetricsMissing
	case referee.KindNoVerdict:
		return ErrNoVerdict
	case referee.KindBaselineFailing:
		return ErrBaselineFailing
	}
	if harness != nil {
		return harness
	}
	return ErrNoVerdict
}

// braked reports whether the run must stop now, before anything else is
// looked at: an interrupt, a brake, the time limit, or the end of the
// driver's schedule. It never waits.
func (r *run) braked(ctx context.Context, deadline time.Time, driverDone chan error) bool {
	now := time.Now()
	if ctx.Err() != nil {
		r.interrupted = true
		return true
	}
	if ev := r.brakes.poll(now); ev != nil {
		r.stopped = ev
		r.opts.logf("stopping: %s", ev.reason)
		return true
	}
	if !now.Before(deadline) {
		r.endHorizon = "the scenario's max_duration was reached"
		return true
	}
	select {
	case err := <-driverDone:
		driverDone <- err
		if !r.agentLost(err) {
			r.endHorizon = "the load schedule ended"
		}
		return true
	default:
	}
	return false
}

// compareWithBaseline compares the run with gate.baseline's run and adds
// the outcome to the gate as its "baseline" criterion.
func (r *run) compareWithBaseline(doc *analysis.Document) {
	b := r.spec.Baseline
	if b == nil || r.baseline == nil {
		return
	}
	applyBaseline(doc, r.baseline.doc, b.Path, analysis.CompareThresholds{
		MaxRecoveryRegression: b.MaxRecoveryRegression, MaxAmplificationRegression: b.MaxAmplificationRegression})
}

// applyBaseline compares doc with base (path: as the user named it) and
// adds the outcome to doc's gate as its "baseline" criterion: passed only
// when the runs are comparable and nothing regressed.
func applyBaseline(doc *analysis.Document, base analysis.Document, path string, th analysis.CompareThresholds) {
	c := analysis.Compare(base, *doc, th)
	doc.Comparison = &c
	passed := c.Comparable && !c.Regressed
	detail := report.CompareHeadline(c) + " (against " + path + ")"
	doc.Gate.Criteria = append(doc.Gate.Criteria, analysis.GateCriterion{Name: "baseline", Passed: passed, Detail: detail})
	if !passed {
		doc.Gate.Passed = false
		doc.Gate.Failures = append(doc.Gate.Failures, detail)
	}
}
