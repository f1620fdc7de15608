package fieldtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/runner"
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

// Run starts the stack (specimen, haproxy, Prometheus), runs the case's
// scenario against it with `trigger run`'s runner, and counts the truth.
func Run(ctx context.Context, c Case, s Signals, opts Options) (Outcome, error) {
	c = c.Scaled(s)
	out := Outcome{Case: c, Signals: s, TruthAFail: math.NaN(), TruthHidden: math.NaN()}
	spec, err := staging.StartSpecimen(ctx, specimen.Config{Pods: 2, PodRate: capacity / 2})
	if err != nil {
		return out, err
	}
	defer spec.Stop()
	proxy, err := staging.StartHAProxy(ctx, staging.HAProxyConfig{Upstream: spec.Addr, TryTimeout: c.TryTimeout, Retries: hiddenFactor - 1})
	if err != nil {
		return out, err
	}
	defer proxy.Stop()
	prom, err := staging.StartPrometheus(ctx, staging.PrometheusConfig{ScrapeInterval: s.ScrapeInterval, Jobs: map[string]string{"service": spec.Addr}})
	if err != nil {
		return out, err
	}
	defer prom.Stop()
	// A rate needs two scrapes: wait for them, as a user's long-running
	// server would have them.
	wctx, cancel := context.WithTimeout(ctx, 3*s.ScrapeInterval+30*time.Second)
	_, err = prom.WaitForSeries(wctx, fmt.Sprintf("sum(rate(specimen_ingress_total[%s]))", s.Window), 1)
	cancel()
	if err != nil {
		return out, fmt.Errorf("fieldtest: prometheus has no rate of the specimen: %w", err)
	}
	tally, err := staging.StartTally(ctx, staging.TallyConfig{Read: func() float64 { return float64(spec.Server.Stats().Ingress()) }, Period: 250 * time.Millisecond})
	if err != nil {
		return out, err
	}
	defer tally.Stop()

	sc, err := scenarios.Parse(c.Name+".hcl", []byte(c.hcl(s, proxy.URL, prom.URL)), nil)
	if err != nil {
		return out, fmt.Errorf("fieldtest: scenario: %w", err)
	}
	test, err := convert.New(sc)
	if err != nil {
		return out, fmt.Errorf("fieldtest: scenario: %w", err)
	}
	out.Result, out.Err = runner.Run(ctx, runner.Options{Test: test, OutDir: opts.OutDir, Logf: opts.Logf, Seed: opts.Seed})
	tally.Sample()
	if out.Result != nil {
		out.TruthAFail, out.TruthHidden = truth(out.Result, tally)
	}
	var re *runner.Error
	if out.Err != nil && !(errors.As(out.Err, &re) && re.Kind == runner.KindInconclusive) {
		return out, out.Err
	}
	return out, nil
}

// truth counts A_fail and the proxy's factor at the service over the
// seconds of the run's settled failed window.
func truth(res *runner.Result, tally *staging.Tally) (aFail, hidden float64) {
	o := res.Document.Observation
	if o == nil || o.FailedFromS == nil || o.FailedToS == nil || res.Start.IsZero() {
		return math.NaN(), math.NaN()
	}
	lo, hi := *o.FailedFromS, *o.FailedToS
	var first, attempts, from, to float64 = 0, 0, math.NaN(), math.NaN()
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
	}
	if first == 0 {
		return math.NaN(), math.NaN()
	}
	at := func(s float64) time.Time { return res.Start.Add(time.Duration(s * float64(time.Second))) }
	ingress := tally.Between(at(from), at(to))
	return ingress / first, ingress / attempts
}

// hcl is the case's scenario: what a user would write for this stack,
// without the wait and first-attempts queries most services lack.
func (c Case) hcl(s Signals, proxyURL, promURL string) string {
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
  timeout  = "1s"
  arrivals = "poisson"
  retry {
    max_retries = 2
    on          = ["timeout", "5xx", "503", "connect"]
  }
`, c.Name, c.What, (10*time.Second + c.Spike + c.Observe + time.Minute).String(), proxyURL)
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
  ingress = "sum(rate(specimen_ingress_total[%s]))"
  served  = "sum(rate(specimen_served_total[%s]))"
%s}
recovery { hold = "3s" }
`, capacity, c.Baseline, c.Multiplier, c.Spike.String(), c.Observe.String(), promURL, s.Window, s.Window, c.waitQuery())
	return b.String()
}

// waitQuery is the wait gauge's line of the prometheus block, if the case has one.
func (c Case) waitQuery() string {
	if !c.WaitGauge {
		return ""
	}
	return "  wait    = \"max(specimen_queue_wait_estimate_seconds)\"\n"
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
// test's tolerances: a wrong verdict; A_fail or the hidden factor more
// than 10 % off the truth counted at the service; A from the wait's slope
// more than 20 % off when reported; a recovery more than 25 % off the
// model's formula at the measured A, ρ and t0.
func (o Outcome) Problems() []string {
	if o.Result == nil {
		return []string{fmt.Sprintf("no result: %v", o.Err)}
	}
	d := o.Result.Document
	var out []string
	if v := o.Verdict(); v != string(o.Case.Want) {
		out = append(out, fmt.Sprintf("verdict %s, want %s (%s)", v, o.Case.Want, d.Observation.VerdictReason))
	}
	off := func(got, want float64) float64 { return math.Abs(got/want - 1) }
	if a := analysis.Value(d.Amplification.Measured); !math.IsNaN(a) && !(off(a, o.TruthAFail) <= 0.10) {
		out = append(out, fmt.Sprintf("A_fail %.2f, truth %.2f (%+.0f %%)", a, o.TruthAFail, 100*(a/o.TruthAFail-1)))
	}
	if h := analysis.Value(d.Amplification.Hidden); !math.IsNaN(h) && !(off(h, o.TruthHidden) <= 0.10) {
		out = append(out, fmt.Sprintf("hidden factor %.2f, truth %.2f", h, o.TruthHidden))
	}
	if s := analysis.Value(d.Observation.AmplificationFromSlope); !math.IsNaN(s) && !(off(s, o.TruthAFail) <= 0.20) {
		out = append(out, fmt.Sprintf("A from the slope %.2f, truth %.2f", s, o.TruthAFail))
	}
	if d.Verdict == analysis.VerdictRecovered && d.Amplification.Measured != nil {
		rec, pred := analysis.Value(d.RecoveryS), analysis.Value(d.Observation.PredictedRecoveryS)
		if !(off(rec, pred) <= 0.25) {
			out = append(out, fmt.Sprintf("recovered in %.1f s, the formula at the measured A, ρ and t0 gives %.1f s", rec, pred))
		}
	}
	return out
}
