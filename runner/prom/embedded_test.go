package prom

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
)

// testInterval is the scrape interval of the end-to-end tests.
const testInterval = 100 * time.Millisecond

// app is a scrape target: a registry behind promhttp whose x_total counter
// grows at exactly 100/s of wall time, so rate(x_total[1s]) is known.
type app struct {
	srv     *httptest.Server
	scrapes atomic.Int64
	vanish  *prometheus.GaugeVec
}

func newApp(t *testing.T, openMetrics bool) *app {
	t.Helper()
	a := &app{}
	t0 := time.Now()
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "x_total", Help: "grows at 100/s"},
			func() float64 { return 100 * time.Since(t0).Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "x_gauge", Help: "constant 42"},
			func() float64 { return 42 }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "x_labelled", Help: "carries its own job label",
			ConstLabels: prometheus.Labels{"job": "inner"}}, func() float64 { return 1 }),
	)
	scrapes := prometheus.NewCounter(prometheus.CounterOpts{Name: "x_scrapes_total", Help: "scrapes served"})
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x_seconds", Help: "three observations",
		Buckets: []float64{0.1, 0.5, 1}})
	for _, v := range []float64{0.05, 0.3, 0.9} {
		hist.Observe(v)
	}
	a.vanish = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "x_vanish", Help: "deleted mid-test"}, []string{"k"})
	a.vanish.WithLabelValues("a").Set(1)
	reg.MustRegister(scrapes, hist, a.vanish)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: openMetrics})
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scrapes.Inc()
		a.scrapes.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// deadURL returns a URL on 127.0.0.1 where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// waitFor polls cond every scrape interval until it holds; it gives up
// (and fails) after a generous bound so that a broken build cannot hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 300 { // at most 30 s
		if cond() {
			return
		}
		time.Sleep(testInterval)
	}
	t.Fatalf("gave up waiting for %s", what)
}

// instantOK evaluates q now and reports whether it gave a number.
func instantOK(q Querier, query string) (float64, bool) {
	v, err := q.Instant(context.Background(), query, time.Now())
	return v, err == nil
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// verifyNoLeaks checks, after every other cleanup of t (httptest servers
// included), that no goroutine started since the call is left.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}

func TestEmbeddedEndToEnd(t *testing.T) {
	verifyNoLeaks(t)
	om, text := newApp(t, true), newApp(t, false)
	driver := prometheus.NewRegistry()
	own := prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_test_total", Help: "driver counter"})
	own.Add(7)
	driver.MustRegister(own)

	dir := filepath.Join(t.TempDir(), "prometheus")
	ctx := context.Background()
	e, err := StartEmbedded(ctx, EmbeddedConfig{
		Dir: dir,
		Targets: []Target{
			{Job: "app", URL: om.srv.URL + "/metrics"},
			{Job: "app-text", URL: text.srv.URL + "/metrics"},
			{Job: "driver", Gatherer: driver},
			{Job: "dead", URL: deadURL(t) + "/metrics"},
		},
		ScrapeInterval: testInterval,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !strings.HasPrefix(e.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q, want http://127.0.0.1:PORT", e.URL())
	}
	q := e.Querier()
	// At least 2.5 s of scrapes of every job, so that every [1s] window of
	// the range query below (the last 2 s) is full.
	for _, job := range []string{"app", "app-text", "driver", "dead"} {
		waitFor(t, "25 scrapes of "+job, func() bool {
			n, ok := instantOK(q, `count_over_time(up{job="`+job+`"}[1m])`)
			return ok && n >= 25
		})
	}

	now := time.Now()
	cases := []struct {
		name, query string
		want, rel   float64
	}{
		// The counter grows at 100/s; rate over 1 s of 100 ms scrapes.
		{"rate of one target", `sum(rate(x_total{job="app"}[1s]))`, 100, 0.2},
		// Two targets expose x_total: the sum over both.
		{"rate summed over targets", `sum(rate(x_total[1s]))`, 200, 0.2},
		// The text-format target's gauge.
		{"gauge, text format", `x_gauge{job="app-text"}`, 42, 0},
		// The in-process Gatherer, with the default instance label.
		{"gatherer counter", `trigger_test_total{job="driver",instance="local"}`, 7, 0},
		// up like Prometheus: 1 for live targets, 0 for the dead URL.
		{"up of a live URL", `up{job="app"}`, 1, 0},
		{"up of the gatherer", `up{job="driver"}`, 1, 0},
		{"up of a dead URL", `up{job="dead"}`, 0, 0},
		// Classic histogram series from OpenMetrics.
		{"histogram count", `x_seconds_count{job="app"}`, 3, 0},
		{"histogram bucket", `x_seconds_bucket{job="app",le="0.5"}`, 2, 0},
		// A scraped job label is kept as exported_job.
		{"exported_job", `x_labelled{job="app",exported_job="inner"}`, 1, 0},
		// Every live target has samples and a duration.
		{"samples scraped", `scrape_samples_scraped{job="app"} > 5`, 0, -1},
		{"scrape duration", `scrape_duration_seconds{job="app"} > 0`, 0, -1},
	}
	for _, c := range cases {
		got, err := q.Instant(ctx, c.query, now)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.rel >= 0 && !near(got, c.want, c.rel) {
			t.Errorf("%s: %s = %g, want %g ± %g%%", c.name, c.query, got, c.want, 100*c.rel)
		}
	}

	// Range: the rate over the last second, every 200 ms.
	samples, err := q.Range(ctx, `sum(rate(x_total{job="app"}[1s]))`, now.Add(-time.Second), now, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 6 {
		t.Errorf("Range gave %d samples, want 6 (every 200 ms over 1 s, both ends)", len(samples))
	}
	for i, s := range samples {
		if !near(s.V, 100, 0.2) {
			t.Errorf("Range sample %d at %s = %g, want 100 ± 20%%", i, s.T.Format(time.RFC3339Nano), s.V)
		}
		if want := now.Add(-time.Second).Add(time.Duration(i) * 200 * time.Millisecond); !s.T.Equal(want.Round(time.Millisecond)) {
			t.Errorf("Range sample %d at %s, want %s", i, s.T, want)
		}
	}

	// The JSON is decoded by client_golang's v1 client as such.
	c, err := api.NewClient(api.Config{Address: e.URL(), RoundTripper: bearerTransport{e.Token(), api.DefaultRoundTripper}})
	if err != nil {
		t.Fatal(err)
	}
	v1api := v1.NewAPI(c)
	val, _, _, err := v1api.Query(ctx, `up`, now)
	if err != nil {
		t.Fatal(err)
	}
	if vec, ok := val.(model.Vector); !ok || len(vec) != 4 {
		t.Errorf("v1 Query(up) = %T %v, want a vector of 4", val, val)
	}
	mat, _, _, err := v1api.QueryRange(ctx, `up{job="dead"}`, v1.Range{Start: now.Add(-time.Second), End: now, Step: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := mat.(model.Matrix); !ok || len(m) != 1 || len(m[0].Values) != 3 || m[0].Metric["instance"] == "" {
		t.Errorf("v1 QueryRange = %v, want one series of 3 points with an instance", mat)
	}
	jobs, _, _, err := v1api.LabelValues(ctx, "job", nil, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []model.LabelValue{"app", "app-text", "dead", "driver"}; !slices.Equal(jobs, want) {
		t.Errorf("v1 LabelValues(job) = %v, want %v", jobs, want)
	}
	names, _, _, err := v1api.LabelNames(ctx, []string{`up`}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (model.LabelNames{"__name__", "instance", "job"}); !slices.Equal(names, want) {
		t.Errorf("v1 LabelNames(up) = %v, want %v", names, want)
	}
	series, _, _, err := v1api.Series(ctx, []string{`up`, `scrape_duration_seconds{job="app"}`}, now.Add(-time.Minute), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 5 {
		t.Errorf("v1 Series = %v, want 5 (4 up and 1 duration)", series)
	}
	bi, err := v1api.Buildinfo(ctx)
	if err != nil || bi.Version != promVersion {
		t.Errorf("v1 Buildinfo = %+v, %v", bi, err)
	}

	// Target health names the cause of a down target.
	for _, h := range e.Targets() {
		if (h.Job == "dead") == h.Up || h.LastScrape.IsZero() {
			t.Errorf("target %+v: wrong health", h)
		}
		if h.Job == "dead" && !strings.Contains(h.LastError, "connection refused") {
			t.Errorf("dead target's error %q does not say connection refused", h.LastError)
		}
	}

	// A series that vanishes from a target is marked stale: an instant
	// query no longer finds it, though the 5 min lookback would.
	if _, ok := instantOK(q, `x_vanish{job="app"}`); !ok {
		t.Fatal("x_vanish not scraped")
	}
	om.vanish.DeleteLabelValues("a")
	n0 := om.scrapes.Load()
	waitFor(t, "two more scrapes", func() bool { return om.scrapes.Load() >= n0+2 })
	_, err = q.Instant(ctx, `x_vanish{job="app"}`, time.Now())
	if !errors.Is(err, ErrNoData) {
		t.Errorf("vanished series: err = %v, want ErrNoData (a staleness marker)", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddedErrors(t *testing.T) {
	verifyNoLeaks(t)
	ctx := context.Background()
	e, err := StartEmbedded(ctx, EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := e.Querier()

	// A query with no series names the query.
	query := `sum(rate(no_such_metric_total[5s]))`
	_, err = q.Instant(ctx, query, time.Now())
	var qe *QueryError
	if !errors.Is(err, ErrNoData) || !errors.As(err, &qe) || qe.Query != query {
		t.Errorf("no series: err = %v, want a *QueryError for %q wrapping ErrNoData", err, query)
	} else if !strings.Contains(err.Error(), `prometheus query "sum(rate(no_such_metric_total[5s]))": no data`) {
		t.Errorf("no series: message %q", err)
	}
	_, err = q.Range(ctx, query, time.Now().Add(-time.Minute), time.Now(), time.Second)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), query) {
		t.Errorf("no series, range: err = %v", err)
	}

	// A syntax error names the query and carries the parser's message.
	bad := `sum(rate(x[5s])`
	_, err = q.Instant(ctx, bad, time.Now())
	if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), `"sum(rate(x[5s])"`) ||
		!strings.Contains(err.Error(), "unclosed left parenthesis") {
		t.Errorf("syntax error: err = %v, want ErrBadQuery naming the query and the parser message", err)
	}

	// Several series where one is needed.
	_, err = q.Instant(ctx, `vector(1) or label_replace(vector(2), "a", "b", "", "")`, time.Now())
	var ms *ManySeriesError
	if !errors.Is(err, ErrManySeries) || !errors.As(err, &ms) || ms.N != 2 || !strings.Contains(err.Error(), "2 series; aggregate with sum(...)") {
		t.Errorf("two series: err = %v", err)
	}
	// A scalar is a number.
	if v, err := q.Instant(ctx, `scalar(vector(3)) * 2`, time.Now()); err != nil || v != 6 {
		t.Errorf("scalar: %v, %v", v, err)
	}
	if err := e.Remote().Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// After Close the server is unreachable, and the error names it.
	_, err = q.Instant(ctx, "1", time.Now())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "prometheus at "+e.URL()+": unreachable") {
		t.Errorf("after Close: err = %v, want ErrUnreachable naming %s", err, e.URL())
	}
}

func TestEmbeddedCloseKeepsData(t *testing.T) {
	verifyNoLeaks(t)
	a := newApp(t, false)
	withApp := goleak.IgnoreCurrent()
	dir := filepath.Join(t.TempDir(), "out", "prometheus")
	ctx, cancel := context.WithCancel(context.Background())
	targets := []Target{{Job: "app", URL: a.srv.URL}}
	e, err := StartEmbedded(ctx, EmbeddedConfig{Dir: dir, Targets: targets, ScrapeInterval: testInterval})
	if err != nil {
		t.Fatal(err)
	}
	if targets[0].Instance != "" {
		t.Errorf("StartEmbedded wrote into the caller's targets: %+v", targets[0])
	}
	waitFor(t, "3 scrapes", func() bool {
		n, ok := instantOK(e.Querier(), `count_over_time(up{job="app"}[1m])`)
		return ok && n >= 3
	})
	at := time.Now()
	// Cancelling the context alone stops everything: the API stops
	// answering and no goroutine of the Embedded is left.
	cancel()
	probe := mustRemote(t, RemoteConfig{Address: e.URL(), Retries: -1})
	waitFor(t, "the API to stop", func() bool { return errors.Is(probe.Ping(context.Background()), ErrUnreachable) })
	probe.Close()
	goleak.VerifyNone(t, withApp)
	// Close after that is a no-op, and the data stays on disk.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "wal")); err != nil {
		t.Fatalf("TSDB WAL gone after Close: %v", err)
	}

	// The recorded data can be read again.
	r, err := OpenRecorded(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := r.Querier().Instant(context.Background(), `max_over_time(x_gauge{job="app"}[1m])`, at)
	if err != nil || v != 42 {
		t.Errorf("reopened: x_gauge = %v, %v; want 42", v, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRecorded(context.Background(), t.TempDir(), ""); err == nil {
		t.Error("OpenRecorded on an empty dir: no error")
	}
}

func TestEmbeddedConfigErrors(t *testing.T) {
	g := prometheus.NewRegistry()
	cases := []struct {
		name string
		cfg  EmbeddedConfig
		want string
	}{
		// The data must go somewhere.
		{"no dir", EmbeddedConfig{}, "Dir is required"},
		// Loopback only.
		{"public listen", EmbeddedConfig{Dir: "x", Listen: "0.0.0.0:9090"}, "not a loopback address"},
		// Every target has a job.
		{"no job", EmbeddedConfig{Dir: "x", Targets: []Target{{URL: "http://127.0.0.1:1/metrics"}}}, "Job is required"},
		// URL or Gatherer, not both.
		{"both sources", EmbeddedConfig{Dir: "x", Targets: []Target{{Job: "j", URL: "http://127.0.0.1:1", Gatherer: g}}}, "exactly one of URL and Gatherer"},
		// A URL must be http(s).
		{"bad url", EmbeddedConfig{Dir: "x", Targets: []Target{{Job: "j", URL: "127.0.0.1:1/metrics"}}}, "want http(s)://host:port/path"},
		// The same job and instance twice would write the same series.
		{"duplicate", EmbeddedConfig{Dir: "x", Targets: []Target{{Job: "j", Gatherer: g}, {Job: "j", Gatherer: g}}}, "given twice"},
	}
	for _, c := range cases {
		_, err := StartEmbedded(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
