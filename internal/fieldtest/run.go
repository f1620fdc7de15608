package fieldtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// Options configure one field run.
type Options struct {
	// OutDir receives the run's folder (result.json, timeline.csv, reports).
	OutDir string
	// Logf prints the run's notes; nil = none.
	Logf func(format string, args ...any)
	// Seed seeds the arrival schedule; 0 means 1.
	Seed uint64
}

// Outcome is one field run: what `trigger run` said, and the truth.
type Outcome struct {
	Case    Case
	Signals Signals
	// Result is the run's result (nil when it failed before any load);
	// Err its error (an inconclusive run returns both).
	Result *runner.Result
	Err    error
	// TruthAFail is A_fail counted at the service over the run's settled
	// failed window (the specimen's ingress over the driver's first
	// attempts in the same seconds), TruthHidden the proxy's factor there
	// (ingress over every attempt the clients sent); NaN when the run
	// measured no failed window.
	TruthAFail, TruthHidden float64
}

// stack is a case's running service, proxy and Prometheus.
type stack struct {
	targetURL, promURL string
	// arrivals reads the truth: every request that has reached the service.
	arrivals func() float64
	// metricsListen is where the driver serves its trigger_* metrics for
	// the stack's Prometheus ("" = not served).
	metricsListen string
	// ready is a rate query that has data once Prometheus scrapes the service.
	ready string
	stops []func() error
}

func (st *stack) stop() {
	for i := len(st.stops) - 1; i >= 0; i-- {
		_ = st.stops[i]()
	}
}

// Run starts the stack (the specimen or uWSGI, haproxy, Prometheus), runs
// the case's scenario against it with `trigger run`'s runner, and counts
// the truth.
func Run(ctx context.Context, c Case, s Signals, opts Options) (Outcome, error) {
	c = c.Scaled(s)
	out := Outcome{Case: c, Signals: s, TruthAFail: math.NaN(), TruthHidden: math.NaN()}
	start := startProxyStack
	switch {
	case c.Stack != "":
		start = startFieldStack
	case c.App:
		start = startAppStack
	}
	st, err := start(ctx, c, s)
	if st != nil {
		defer st.stop()
	}
	if err != nil {
		return out, err
	}
	tally, err := staging.StartTally(ctx, staging.TallyConfig{Read: st.arrivals, Period: 250 * time.Millisecond})
	if err != nil {
		return out, err
	}
	defer tally.Stop()

	sc, err := scenarios.Parse(c.Name+".hcl", []byte(c.hcl(s, st.targetURL, st.promURL)), nil)
	if err != nil {
		return out, fmt.Errorf("fieldtest: scenario: %w", err)
	}
	test, err := convert.New(sc)
	if err != nil {
		return out, fmt.Errorf("fieldtest: scenario: %w", err)
	}
	out.Result, out.Err = runner.Run(ctx, runner.Options{Test: test, OutDir: opts.OutDir, Logf: opts.Logf, Seed: opts.Seed, MetricsListen: st.metricsListen})
	tally.Sample()
	if out.Result != nil {
		out.TruthAFail, out.TruthHidden = truth(out.Result, tally, c.tries())
	}
	var re *runner.Error
	if out.Err != nil && !(errors.As(out.Err, &re) && re.Kind == runner.KindInconclusive) {
		return out, out.Err
	}
	if out.Result != nil && slices.Contains(out.Result.Written, runner.ResultFile) {
		if err := sameWhenJudged(opts.OutDir); err != nil {
			return out, err
		}
	}
	return out, nil
}

// sameWhenJudged replays a finished run's folder (runner.Judge, as
// `trigger judge` does) and says how its result.json differs from the one
// the run wrote (nil: byte for byte the same).
func sameWhenJudged(dir string) error {
	want, err := os.ReadFile(filepath.Join(dir, runner.ResultFile))
	if err != nil {
		return fmt.Errorf("fieldtest: replay: %w", err)
	}
	res, _ := runner.Judge(runner.JudgeOptions{Dir: dir})
	if res == nil {
		_, err := runner.Judge(runner.JudgeOptions{Dir: dir})
		return fmt.Errorf("fieldtest: replay: %w", err)
	}
	again := filepath.Join(dir, ".judged.json")
	defer os.Remove(again)
	if err := report.WriteResult(again, res.Document); err != nil {
		return fmt.Errorf("fieldtest: replay: %w", err)
	}
	got, err := os.ReadFile(again)
	if err != nil {
		return fmt.Errorf("fieldtest: replay: %w", err)
	}
	if !bytes.Equal(got, want) {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				return fmt.Errorf("fieldtest: trigger judge on the run's folder differs from its result.json at line %d: %q, replayed %q", i+1, wl[i], gl[i])
			}
		}
		return fmt.Errorf("fieldtest: trigger judge on the run's folder differs from its result.json in length: %d lines, replayed %d", len(wl), len(gl))
	}
	return nil
}

// startProxyStack starts the specimen behind haproxy, and Prometheus.
func startProxyStack(ctx context.Context, c Case, s Signals) (*stack, error) {
	st := &stack{}
	spec, err := specimen.StartLoopback(ctx, specimen.Config{Pods: 2, PodRate: capacity / 2})
	if err != nil {
		return st, err
	}
	st.stops = append(st.stops, spec.Stop)
	st.arrivals = func() float64 { return float64(spec.Server.Stats().Ingress()) }
	proxy, err := staging.StartHAProxy(ctx, staging.HAProxyConfig{Upstream: spec.Addr, TryTimeout: c.TryTimeout, Retries: hiddenFactor - 1})
	if err != nil {
		return st, err
	}
	st.stops = append(st.stops, proxy.Stop)
	st.targetURL = proxy.URL
	st.ready = fmt.Sprintf("sum(rate(specimen_ingress_total[%s]))", s.Window)
	return st, st.startPrometheus(ctx, s, map[string]string{"service": spec.Addr})
}

// startAppStack starts uWSGI (behind haproxy for a Proxy case) and
// Prometheus scraping the application's counters, haproxy's exporter and
// the driver's metrics.
func startAppStack(ctx context.Context, c Case, s Signals) (*stack, error) {
	st := &stack{}
	app, err := staging.StartUWSGI(ctx, staging.UWSGIConfig{})
	if err != nil {
		return st, err
	}
	st.stops = append(st.stops, app.Stop)
	st.arrivals = func() float64 {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		stats, err := app.Stats(sctx)
		if err != nil {
			return math.NaN()
		}
		return stats.Arrivals()
	}
	st.targetURL = app.URL
	jobs := map[string]string{"app": app.MetricsAddr}
	if c.Proxy {
		proxy, err := staging.StartHAProxy(ctx, staging.HAProxyConfig{Upstream: app.Addr, TryTimeout: c.TryTimeout, Retries: 1, Exporter: true})
		if err != nil {
			return st, err
		}
		st.stops = append(st.stops, proxy.Stop)
		st.targetURL = proxy.URL
		jobs["haproxy"] = proxy.ExporterAddr
	}
	if c.IngressFrom == "driver" {
		if st.metricsListen, err = staging.LoopbackAddr(); err != nil {
			return st, err
		}
		jobs["trigger"] = st.metricsListen
	}
	st.ready = fmt.Sprintf("sum(rate(app_requests_total[%s]))", s.Window)
	if err := st.startPrometheus(ctx, s, jobs); err != nil {
		return st, err
	}
	if c.Restart {
		// Prometheus has the service's series; the restart leaves them
		// stale until its next scrape, 10 s away at the most.
		if err := app.Restart(ctx); err != nil {
			return st, err
		}
	}
	return st, nil
}

// startPrometheus starts Prometheus scraping the jobs and waits until the
// stack's ready query has a rate, as a user's long-running server would
// have it.
func (st *stack) startPrometheus(ctx context.Context, s Signals, jobs map[string]string) error {
	prom, err := staging.StartPrometheus(ctx, staging.PrometheusConfig{ScrapeInterval: s.ScrapeInterval, Jobs: jobs})
	if err != nil {
		return err
	}
	st.stops = append(st.stops, prom.Stop)
	st.promURL = prom.URL
	wctx, cancel := context.WithTimeout(ctx, 3*s.ScrapeInterval+30*time.Second)
	defer cancel()
	if _, err := prom.WaitForSeries(wctx, st.ready, 1); err != nil {
		return fmt.Errorf("fieldtest: prometheus has no rate of the service: %w", err)
	}
	return nil
}

// truth counts A_fail and the proxy's factor at the service over the
// seconds of the run's settled failed window.
//
// Tracers reach the service too, each tried as often as the layers in
// front of it try every attempt in the failed state (tries): their
// arrivals are left out, as A_fail leaves them out.
func truth(res *runner.Result, tally *staging.Tally, tries float64) (aFail, hidden float64) {
	o := res.Document.Observation
	if o == nil || o.FailedFromS == nil || o.FailedToS == nil || res.Start.IsZero() {
		return math.NaN(), math.NaN()
	}
	lo, hi := *o.FailedFromS, *o.FailedToS
	var first, attempts, tracers, from, to float64 = 0, 0, 0, math.NaN(), math.NaN()
	for _, r := range res.Timeline {
		if mid := r.TS + 0.5; mid < lo || mid >= hi {
			continue
		}
		if math.IsNaN(from) {
			from = r.TS
		}
		to = r.TS + 1
		first += r.Sent
		attempts += r.Attempts()
		if !math.IsNaN(r.TracersSent) {
			tracers += r.TracersSent
		}
	}
	if first == 0 {
		return math.NaN(), math.NaN()
	}
	at := func(s float64) time.Time { return res.Start.Add(time.Duration(s * float64(time.Second))) }
	ingress := tally.Between(at(from), at(to)) - tries*tracers
	return ingress / first, ingress / attempts
}

// hcl is the case's scenario: what a user would write for this stack,
// without the wait and first-attempts queries most services lack.
func (c Case) hcl(s Signals, targetURL, promURL string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `scenario %q {
  description  = %q
  max_duration = %q
}
target {
  url         = "%s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = %q
  arrivals = "poisson"
  retry {
    max_retries = %d
    on          = ["timeout", "5xx", "503", "connect"]
  }
`, c.Name, c.What, (10*time.Second + c.Spike + c.Observe + 2*time.Minute).String(), targetURL, c.clientTimeout().String(), int(c.clientAttempts())-1)
	if c.Tracers {
		b.WriteString("  tracers {\n    rate    = 4\n    timeout = \"30s\"\n  }\n")
	}
	b.WriteString("}\n")
	if c.Declared {
		fmt.Fprintf(&b, "layer \"proxy\" {\n  max_retries = %d\n  timeout     = %q\n}\n", hiddenFactor-1, c.TryTimeout.String())
	}
	fmt.Fprintf(&b, `service { capacity = %d }
load {
  baseline = %g
  warmup   = "10s"
  spike {
    multiplier = %g
    duration   = %q
  }
  observe = %q
}
prometheus {
  address = %q
%s}
recovery { hold = %q }
`, c.capacity(), c.Baseline, c.Multiplier, c.Spike.String(), c.Observe.String(), promURL, c.queries(s.Window), c.hold().String())
	if c.Budget > 0 {
		fmt.Fprintf(&b, "gate { max_recovery = %q }\n", c.Budget.String())
	}
	return b.String()
}

// tries is how often the layers in front of the service try each attempt
// once every try fails: haproxy's retries plus one, or one without it.
func (c Case) tries() float64 {
	switch {
	case c.Stack != "":
		return 1
	case !c.App:
		return hiddenFactor
	case c.Proxy:
		return 2
	}
	return 1
}

// capacity is the case's service capacity, requests per second.
func (c Case) capacity() int {
	if c.Stack != "" {
		return c.fieldCapacity()
	}
	if c.App {
		return appCapacity
	}
	return capacity
}

// queries are the prometheus block's query lines for the case's stack.
func (c Case) queries(window string) string {
	line := func(name, query string) string { return fmt.Sprintf("  %-14s = %q\n", name, query) }
	rate := func(sel string) string { return fmt.Sprintf("sum(rate(%s[%s]))", sel, window) }
	if c.Stack != "" {
		return c.fieldQueries(line, rate)
	}
	if !c.App {
		q := line("ingress", rate("specimen_ingress_total")) + line("served", rate("specimen_served_total"))
		if c.WaitGauge {
			q += line("wait", "max(specimen_queue_wait_estimate_seconds)")
		}
		return q
	}
	served := line("served", rate("app_served_total"))
	switch c.IngressFrom {
	case "proxy":
		return line("ingress", rate(`haproxy_backend_connection_attempts_total{proxy="be"}`)) + served
	case "driver":
		// After a restart the application's series are stale for a
		// scrape: `or vector(0)`, as users write for such series.
		return line("ingress", rate("trigger_attempts_sent_total")) +
			line("first_attempts", rate(`trigger_attempts_sent_total{kind="first"}`)) +
			line("served", rate("app_served_total")+" or vector(0)")
	}
	return line("ingress", rate("app_requests_total")) + served
}

// Verdict is the run's verdict, or "inconclusive".
func (o Outcome) Verdict() string {
	if o.Result == nil {
		return "error"
	}
	if o.Result.Document.Observation != nil && o.Result.Document.Observation.Inconclusive != "" {
		return "inconclusive"
	}
	return string(o.Result.Document.Verdict)
}

// Problems lists where the run departs from the truth beyond the field
// test's tolerances: a wrong verdict (the case's Want, or AlsoRight); a
// gate that passes where it must fail; A_fail or the hidden factor more
// than 10 % off the truth counted at the service, or reported where the
// counters cannot measure it (AFailNull), or missing where they can
// (WantHidden); A from the wait's slope more than 20 % off when reported;
// a recovery more than 25 % off the model's formula at the true A and
// the measured ρ and t0 (for a FIFO service). The problems of the
// figures the case lists in KnownWrong are left out (KnownProblems).
func (o Outcome) Problems() []string {
	out, _ := o.problems()
	return out
}

// KnownProblems are the problems of the figures the case lists in
// KnownWrong: wrong, and known to be.
func (o Outcome) KnownProblems() []string {
	_, known := o.problems()
	return known
}

// problems sorts the run's problems into those that fail the case and
// those of the figures in its KnownWrong.
func (o Outcome) problems() (out, known []string) {
	if o.Result == nil {
		return []string{fmt.Sprintf("no result: %v", o.Err)}, nil
	}
	d := o.Result.Document
	figure := func(name, problem string) {
		if o.Case.knownWrong(name) {
			known = append(known, problem)
		} else {
			out = append(out, problem)
		}
	}
	if v := o.Verdict(); v != string(o.Case.Want) && (o.Case.AlsoRight == "" || v != string(o.Case.AlsoRight)) {
		out = append(out, fmt.Sprintf("verdict %s, want %s (%s)", v, o.wanted(), d.Observation.VerdictReason))
	}
	if o.Case.GateFails && d.Gate.Passed {
		out = append(out, "the gate passed; it must fail")
	}
	if o.Case.App || o.Case.Stack != "" {
		for _, sig := range d.Observation.Signals {
			if sig.ScrapeIntervalS != o.Signals.ScrapeInterval.Seconds() {
				out = append(out, fmt.Sprintf("query %s: scrape interval %.0f s (%s), the server scrapes every %s", sig.Name, sig.ScrapeIntervalS, sig.ScrapeIntervalFrom, o.Signals.ScrapeInterval))
			}
		}
	}
	off := func(got, want float64) float64 { return math.Abs(got/want - 1) }
	a := analysis.Value(d.Amplification.Measured)
	switch {
	case o.Case.AFailNull && !math.IsNaN(a):
		figure("A_fail", fmt.Sprintf("A_fail %.2f reported from counters behind the queue (truth %.2f)", a, o.TruthAFail))
	case o.Case.AFailNull && d.Amplification.MeasuredNote == "":
		figure("A_fail", "A_fail is null without a note saying why")
	case !math.IsNaN(a) && !(off(a, o.TruthAFail) <= 0.10):
		figure("A_fail", fmt.Sprintf("A_fail %.2f, truth %.2f (%+.0f %%)", a, o.TruthAFail, 100*(a/o.TruthAFail-1)))
	}
	h := analysis.Value(d.Amplification.Hidden)
	switch {
	case !math.IsNaN(h) && !(off(h, o.TruthHidden) <= 0.10):
		figure("hidden", fmt.Sprintf("hidden factor %.2f, truth %.2f", h, o.TruthHidden))
	case math.IsNaN(h) && o.Case.WantHidden:
		figure("hidden", fmt.Sprintf("no hidden factor (truth %.2f): %s", o.TruthHidden, d.Amplification.HiddenNote))
	}
	if s := analysis.Value(d.Observation.AmplificationFromSlope); !math.IsNaN(s) && !(off(s, o.trueA()) <= 0.20) {
		figure("slope", fmt.Sprintf("A from the slope %.2f, truth %.2f", s, o.trueA()))
	}
	out = append(out, o.explanationProblems()...)
	if d.Verdict == analysis.VerdictRecovered && !o.Case.NotFIFO {
		rec, pred := analysis.Value(d.RecoveryS), o.formula()
		if !(off(rec, pred) <= 0.25) {
			figure("recovery", fmt.Sprintf("recovered in %.1f s, the formula at the true A = %.2f and the measured ρ and t0 gives %.1f s", rec, o.trueA(), pred))
		}
	}
	return out, known
}

// wanted names the right verdicts.
func (o Outcome) wanted() string {
	if o.Case.AlsoRight != "" {
		return string(o.Case.Want) + " or " + string(o.Case.AlsoRight)
	}
	return string(o.Case.Want)
}

// trueA is the case's A, exact by construction (the clients' three
// attempts times the proxy's tries), else A_fail counted at the service
// (noisy over the short failed state of a recovery).
func (o Outcome) trueA() float64 {
	if o.Case.TrueA > 0 {
		return o.Case.TrueA
	}
	return o.TruthAFail
}

// formula is the recovery time the model's formula gives at the true A
// (with the tracers' share of the work), the measured ρ, k and t0 and the
// patience the run used, seconds from the spike's end (NaN when the run
// measured none of them).
func (o Outcome) formula() float64 {
	obs := o.Result.Document.Observation
	if obs == nil || obs.Utilization == nil || obs.SpikeStartS == nil || obs.SpikeEndS == nil {
		return math.NaN()
	}
	rho := *obs.Utilization
	spike := *obs.SpikeEndS - *obs.SpikeStartS
	k := o.Case.Multiplier
	patience := analysis.Value(obs.PatienceS)
	t0 := analysis.Value(obs.T0S)
	if !(t0 < spike) {
		t0 = analysis.TriggerTime(k, rho, patience)
	}
	// The tracers' attempts load the service as the clients' do (each
	// tried as often as the layers try: tries), a share of 1/A_client per
	// first attempt each.
	var tracers, first float64
	for _, r := range o.Result.Timeline {
		if r.Phase == "warmup" && !math.IsNaN(r.TracersSent) {
			tracers += r.TracersSent
			first += r.Sent
		}
	}
	load := 1.0
	if first > 0 {
		load += tracers / first / o.Case.clientAttempts() // one share of the clients' attempts per request
	}
	return analysis.RecoveryTimeAfter(o.trueA()*load, rho, k, spike, t0, patience)
}

// explanationProblems are what the run says beside its verdict that
// contradicts what it measured or the case's truth: the sustaining effect
// named, advice that a recovered service stays failed, advice to add an
// admission bound to a service that has one (issue 34, items 3 and 5).
func (o Outcome) explanationProblems() []string {
	d := o.Result.Document
	var out []string
	failed := d.Verdict == analysis.VerdictTrapped || d.Verdict == analysis.VerdictMetastable
	s := d.Observation.SustainedBy
	switch {
	case failed && s == nil:
		out = append(out, "a "+string(d.Verdict)+" run names no sustaining effect")
	case !failed && s != nil:
		out = append(out, fmt.Sprintf("a %s run names a sustaining effect (%s)", d.Verdict, s.Effect))
	case failed && len(o.Case.Sustained) > 0 && !slices.Contains(o.Case.Sustained, s.Effect):
		out = append(out, fmt.Sprintf("held down by %s, want %v: %s", s.Effect, o.Case.Sustained, s.Note))
	}
	for _, a := range d.Advice() {
		switch {
		case d.Verdict == analysis.VerdictRecovered && strings.Contains(a, "once triggered the"):
			out = append(out, "the advice says a service that recovered stays failed: "+a)
		case o.Case.HasBound && strings.Contains(a, "admission bound") && !strings.Contains(a, "is not below"):
			out = append(out, "the advice recommends an admission bound to a service that has one: "+a)
		}
	}
	return out
}

// hold is the scenario's recovery.hold: the case's, or 3 s.
func (c Case) hold() time.Duration {
	if c.Hold > 0 {
		return c.Hold
	}
	return 3 * time.Second
}
