package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/runner/prom"
)

// serviceQuery is one of the scenario's PromQL queries and the column of
// the timeline it fills.
type serviceQuery struct {
	name string // the scenario attribute: ingress, served, ...
	text string
	set  func(*serviceSample, float64)
}

// serviceSample is one second of the service's metrics (NaN: unknown).
type serviceSample struct {
	ingress, first, served, abandoned, wait, pods float64
}

func unknownSample() serviceSample {
	n := math.NaN()
	return serviceSample{n, n, n, n, n, n}
}

// metrics is where a run reads the service's own metrics: an embedded
// Prometheus it started, or a remote one.
type metrics struct {
	querier  prom.Querier
	embedded *prom.Embedded // nil for a remote Prometheus
	remote   *prom.Remote
	address  string
	queries  []serviceQuery
	timeout  time.Duration     // per query
	lastErr  map[string]string // the last error of each query, logged once per change
	missing  map[string]int    // seconds each query had no value
	sampled  int               // seconds sampled
	// sigs are the queries with their range windows and scrape intervals.
	sigs []convert.Signal
}

// sampleSetters fill a serviceSample's field from each query's value.
var sampleSetters = map[string]func(*serviceSample, float64){
	"ingress":        func(s *serviceSample, v float64) { s.ingress = v },
	"first_attempts": func(s *serviceSample, v float64) { s.first = v },
	"served":         func(s *serviceSample, v float64) { s.served = v },
	"abandoned":      func(s *serviceSample, v float64) { s.abandoned = v },
	"wait":           func(s *serviceSample, v float64) { s.wait = v },
	"pods":           func(s *serviceSample, v float64) { s.pods = v },
}

func scenarioQueries(p *convert.Metrics) []serviceQuery {
	var out []serviceQuery
	for _, q := range p.Queries {
		out = append(out, serviceQuery{q.Name, q.Text, sampleSetters[q.Name]})
	}
	return out
}

// has reports whether the scenario configured the named query.
func (m *metrics) has(name string) bool {
	if m == nil {
		return false
	}
	for _, q := range m.queries {
		if q.name == name {
			return true
		}
	}
	return false
}

// openMetrics starts the embedded Prometheus (scraping the scenario's
// targets and the driver's collectors) or connects to the remote one, and
// checks that every configured query returns data, before any load is
// sent. It returns nil when the scenario has no prometheus block.
func openMetrics(ctx context.Context, opts Options, driver prometheus.Gatherer) (*metrics, error) {
	p := opts.Test.Run.Metrics
	if p == nil {
		return nil, nil
	}
	m := &metrics{queries: scenarioQueries(p), timeout: p.Timeout, lastErr: map[string]string{}, missing: map[string]int{}}
	if m.timeout <= 0 {
		m.timeout = prom.DefaultTimeout
	}
	if p.Embedded {
		targets := []prom.Target{{Job: "trigger", Gatherer: driver}}
		for _, u := range p.Scrape {
			targets = append(targets, prom.Target{Job: "service", URL: u})
		}
		// The server lives until the run closes it, not until an interrupt:
		// the seconds measured before a Ctrl-C still need their metrics.
		e, err := prom.StartEmbedded(context.WithoutCancel(ctx), prom.EmbeddedConfig{
			Dir:            filepath.Join(opts.OutDir, "prometheus"),
			Targets:        targets,
			ScrapeInterval: p.ScrapeInterval,
		})
		if err != nil {
			return nil, failf(KindHarness, "embedded prometheus: %w", err)
		}
		m.embedded, m.querier, m.address = e, e.Querier(), e.URL()
		// The operator may query it during the run (Grafana, promtool):
		// with the token, from this machine, within the cost bounds.
		opts.logf("embedded Prometheus at %s, bearer token %s (this run's only; send Authorization: Bearer TOKEN)", e.URL(), e.Token())
	} else {
		cfg := prom.RemoteConfig{Address: p.Address, Timeout: p.Timeout}
		if err := remoteAuth(&cfg, p.Auth, p.TLS, opts.getenv); err != nil {
			return nil, &Error{Kind: KindUsage, Err: err}
		}
		r, err := prom.NewRemote(cfg)
		if err != nil {
			return nil, failf(KindUsage, "prometheus: %w", err)
		}
		if err := r.Ping(ctx); err != nil {
			r.Close()
			if ctx.Err() != nil {
				return nil, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
			}
			return nil, failf(KindHarness, "%w", err)
		}
		m.remote, m.querier, m.address = r, r, r.Address()
	}
	if err := m.checkQueries(ctx, opts, p); err != nil {
		m.close()
		return nil, err
	}
	if err := m.readSignals(ctx, opts.Test.Signals, opts.logf); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// remoteAuth resolves the credentials the scenario names by environment
// variable; a named variable that is unset is an error, not an anonymous run.
func remoteAuth(cfg *prom.RemoteConfig, a *convert.Auth, t *tlsfiles.Files, getenv func(string) string) error {
	cfg.TLS = t
	if a == nil {
		return nil
	}
	read := func(name string) (string, error) {
		if name == "" {
			return "", nil
		}
		v := getenv(name)
		if v == "" {
			return "", fmt.Errorf("prometheus credentials: environment variable %s is not set", name)
		}
		return v, nil
	}
	var err error
	if cfg.BearerToken, err = read(a.BearerTokenEnv); err != nil {
		return err
	}
	if cfg.Username, err = read(a.UsernameEnv); err != nil {
		return err
	}
	cfg.Password, err = read(a.PasswordEnv)
	return err
}

// remoteDataGrace is how long a remote Prometheus' queries may return no
// data before the run calls it missing.
const remoteDataGrace = 15 * time.Second

// checkQueries waits for the embedded server's first scrapes, checks that
// every scrape target is up, and that every query returns data.
func (m *metrics) checkQueries(ctx context.Context, opts Options, p *convert.Metrics) error {
	interval := p.ScrapeInterval
	// A remote server may have just started scraping (or just been pointed
	// at a new target): give its data a few scrapes to appear.
	deadline := time.Now().Add(remoteDataGrace)
	if m.embedded != nil {
		warm := opts.QueryWarmup
		if warm <= 0 {
			warm = 3 * interval
		}
		if err := sleep(ctx, warm); err != nil {
			return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
		}
		for _, t := range m.embedded.Targets() {
			if t.Job == "service" && !t.Up {
				return failf(KindHarness, "scrape target %s is down: %s", t.Instance, t.LastError)
			}
		}
		deadline = time.Now().Add(10 * interval)
	}
	own := map[string]bool{}
	for _, sig := range opts.Test.Signals {
		own[sig.Name] = sig.DriverOwn()
	}
	for _, q := range m.queries {
		for {
			_, err := m.querier.Instant(ctx, q.text, time.Now())
			if err == nil {
				break
			}
			if errors.Is(err, prom.ErrNoData) && own[q.name] {
				// The driver's own series come with the load.
				opts.logf("prometheus query %s = %q: no data yet; its series are the driver's own trigger_* metrics, which come with the load%s",
					q.name, q.text, ownSeriesHint(m, opts))
				break
			}
			if errors.Is(err, prom.ErrNoData) && time.Now().Before(deadline) {
				if err := sleep(ctx, interval); err != nil {
					return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
				}
				continue
			}
			return queryFailure(q, err, m.address)
		}
	}
	return nil
}

// ownSeriesHint reminds, for a remote Prometheus, that it must scrape the
// driver's metrics for its trigger_* series to exist.
func ownSeriesHint(m *metrics, opts Options) string {
	if m.embedded != nil {
		return ""
	}
	if opts.MetricsListen == "" {
		return " (a remote Prometheus has them only if it scrapes this run's --metrics-addr, which is not set)"
	}
	return " (from " + opts.MetricsListen + ", which your Prometheus must scrape)"
}

// queryFailure maps a query's error to a run error naming the query.
func queryFailure(q serviceQuery, err error, address string) error {
	switch {
	case errors.Is(err, prom.ErrNoData):
		return failf(KindInconclusive, "prometheus query %s = %q returned no data at %s: check the metric name and labels, and that the service is scraped (wrap optional series in `... or vector(0)`)", q.name, q.text, address)
	case errors.Is(err, prom.ErrBadQuery), errors.Is(err, prom.ErrManySeries):
		return failf(KindUsage, "prometheus query %s: %w", q.name, err)
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	}
	return failf(KindHarness, "prometheus query %s: %w", q.name, err)
}

// queryAll reads every query at t, concurrently, each bounded by the
// scenario's query timeout and by ctx (its deadline is the second's). It
// only reads m: the sampler calls it off the run loop, and the loop keeps
// the books (record).
func (m *metrics) queryAll(ctx context.Context, t time.Time) ([]float64, []error) {
	vals := make([]float64, len(m.queries))
	errs := make([]error, len(m.queries))
	var wg sync.WaitGroup
	for i, q := range m.queries {
		wg.Go(func() {
			qctx, cancel := context.WithTimeout(ctx, m.timeout)
			defer cancel()
			vals[i], errs[i] = m.querier.Instant(qctx, q.text, t)
		})
	}
	wg.Wait()
	return vals, errs
}

// record turns one second's query results into a sample (errs nil: the
// second's metrics came too late, every value is missing), counts what is
// missing, and reports each query's error through logf once per change.
// It returns the sample and how many queries had no value.
func (m *metrics) record(vals []float64, errs []error, logf func(string, ...any)) (serviceSample, int) {
	s := unknownSample()
	if m == nil {
		return s, 0
	}
	m.sampled++
	missing := 0
	for i, q := range m.queries {
		var err error
		switch {
		case errs == nil:
			err = errLate
		case errs[i] != nil:
			err = errs[i]
		}
		if err != nil {
			missing++
			m.missing[q.name]++
			if msg := err.Error(); msg != m.lastErr[q.name] {
				m.lastErr[q.name] = msg
				logf("prometheus: %s: %s (the value is left out of this second)", q.name, msg)
			}
			continue
		}
		if why := notMeasurement(vals[i]); why != "" {
			missing++
			m.missing[q.name]++
			if msg := why; msg != m.lastErr[q.name] {
				m.lastErr[q.name] = msg
				logf("prometheus: %s: %s (the value is left out of this second)", q.name, msg)
			}
			continue
		}
		m.lastErr[q.name] = ""
		q.set(&s, vals[i])
	}
	return s, missing
}

// maxMetricValue is the largest value a query of the service may return
// and be taken as a measurement: a billion requests per second, seconds
// of wait or pods.
const maxMetricValue = 1e9

// notMeasurement says why a query's value cannot be a rate, a wait or a
// pod count ("" when it can): infinite, beyond maxMetricValue (1e308 from
// a broken or hostile server), or negative. Such a value counts as
// missing.
func notMeasurement(v float64) string {
	switch {
	case math.IsInf(v, 0) || math.Abs(v) > maxMetricValue:
		return fmt.Sprintf("the value %g is not a measurement (beyond %g)", v, float64(maxMetricValue))
	case v < 0:
		return fmt.Sprintf("the value %g is negative: not a rate, a wait or a count", v)
	}
	return ""
}

// errLate stands for a value whose second was written before Prometheus
// answered.
var errLate = errors.New("no answer before the second's deadline")

// gaps names the queries that had no value for more than a tenth of the
// seconds sampled, with how many they missed.
func (m *metrics) gaps() []string {
	if m == nil || m.sampled == 0 {
		return nil
	}
	var out []string
	for _, q := range m.queries {
		if n := m.missing[q.name]; n*10 > m.sampled {
			out = append(out, fmt.Sprintf("%s (%d of %d seconds)", q.name, n, m.sampled))
		}
	}
	return out
}

func (m *metrics) close() {
	if m == nil {
		return
	}
	if m.embedded != nil {
		_ = m.embedded.Close()
	}
	if m.remote != nil {
		m.remote.Close()
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
