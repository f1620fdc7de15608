package prom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
)

// activeTarget renders one activeTargets entry of /api/v1/targets in the
// format of Prometheus 2.42 (checked against /usr/bin/prometheus) and 3.x.
func activeTarget(job, instance, interval string) string {
	return fmt.Sprintf(`{
	"discoveredLabels": {"__address__": "10.0.0.1:8080", "__metrics_path__": "/metrics", "__scheme__": "http",
		"__scrape_interval__": %[3]q, "__scrape_timeout__": %[3]q, "job": %[1]q},
	"labels": {"instance": %[2]q, "job": %[1]q},
	"scrapePool": %[1]q,
	"scrapeUrl": "http://10.0.0.1:8080/metrics",
	"globalUrl": "http://api-0:8080/metrics",
	"lastError": "",
	"lastScrape": "2026-11-30T21:25:59.977256353Z",
	"lastScrapeDuration": 0.005186085,
	"health": "up",
	"scrapeInterval": %[3]q,
	"scrapeTimeout": %[3]q
}`, job, instance, interval)
}

// targetsBody is an /api/v1/targets answer with the given active targets.
func targetsBody(active ...string) string {
	return `{"status":"success","data":{"activeTargets":[` + strings.Join(active, ",") + `],"droppedTargets":[]}}`
}

// vectorOf is the answer to an instant query: one series per label set, value 1.
func vectorOf(labelSets ...string) string {
	var rs []string
	for _, l := range labelSets {
		rs = append(rs, `{"metric":`+l+`,"value":[1700000000,"1"]}`)
	}
	return `{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(rs, ",") + `]}}`
}

// matrixOf is the answer to an instant query of a range selector: the
// series with samples at the given Unix times.
func matrixOf(labels string, times ...float64) string {
	var vs []string
	for i, t := range times {
		vs = append(vs, fmt.Sprintf(`[%.3f,"%d"]`, t, i))
	}
	return `{"status":"success","data":{"resultType":"matrix","result":[{"metric":` + labels + `,"values":[` + strings.Join(vs, ",") + `]}]}}`
}

// fakeAPI answers /api/v1/query from a map of query text to body (an
// unknown query is a test failure) and /api/v1/targets with targets, or
// 404 when targets is "". Every request must carry the bearer token.
func fakeAPI(t *testing.T, queries map[string]string, targets string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/targets":
			if targets == "" {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(targets))
		case "/api/v1/query":
			q := r.FormValue("query")
			body, ok := queries[q]
			if !ok {
				mu.Lock()
				t.Errorf("unexpected query %q", q)
				mu.Unlock()
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"unexpected query"}`))
				return
			}
			_, _ = w.Write([]byte(body))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestScrapeIntervalRemote(t *testing.T) {
	verifyNoLeaks(t)
	const (
		api0     = `{"job":"api","instance":"10.0.0.1:8080"}`
		api1     = `{"job":"api","instance":"10.0.0.2:8080"}`
		renamed  = `{"job":"api","instance":"api-0"}`
		series0  = `{"__name__":"x_total","job":"api","instance":"api-0","code":"200"}`
		series1  = `{"__name__":"x_total","job":"api","instance":"api-0","code":"500"}`
		exact0   = `{__name__="x_total",code="200",instance="api-0",job="api"}`
		rule     = `{"__name__":"job:x:rate1m","job":"api"}`
		ruleSel  = `{__name__="job:x:rate1m",job="api"}`
		countX   = `count by (job, instance) (x_total)`
		countY   = `count by (job, instance) (y{kind="first"})`
		countR   = `count by (job, instance) (job:x:rate1m)`
		countNil = `count by (job, instance) (nothing)`
	)
	every10s := []float64{1700000000, 1700000010, 1700000020, 1700000031, 1700000040}
	cases := []struct {
		name      string
		selectors []string
		queries   map[string]string
		targets   string // "" = 404
		want      time.Duration
		how       []string // substrings of the how text, the first its start
		wantErr   error
	}{
		{
			// Both series' targets report 5s.
			name:      "targets",
			selectors: []string{"x_total"},
			queries:   map[string]string{countX: vectorOf(api0, api1)},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s"), activeTarget("api", "10.0.0.2:8080", "5s"), activeTarget("db", "10.0.0.3:9100", "1m")),
			want:      5 * time.Second,
			how:       []string{HowTargets},
		},
		{
			// The longest interval among the selectors' targets; the
			// unrelated 1m target does not count.
			name:      "longest of two selectors",
			selectors: []string{"x_total", `y{kind="first"}`},
			queries:   map[string]string{countX: vectorOf(api0), countY: vectorOf(api1)},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s"), activeTarget("api", "10.0.0.2:8080", "15s"), activeTarget("db", "10.0.0.3:9100", "1m")),
			want:      15 * time.Second,
			how:       []string{HowTargets},
		},
		{
			// The series' instance label was rewritten: no target matches,
			// so one series is measured (median gap 10 s, one gap of 11 s).
			name:      "relabelled: measured",
			selectors: []string{"x_total"},
			queries: map[string]string{
				countX:          vectorOf(renamed),
				"x_total":       vectorOf(series1, series0),
				exact0 + "[5m]": matrixOf(series0, every10s...),
			},
			targets: targetsBody(activeTarget("api", "10.0.0.1:8080", "5s")),
			want:    10 * time.Second,
			how:     []string{HowMeasured, `no active target with a scrapeInterval for job="api" instance="api-0"`, "median gap of 5 samples of 1 series"},
		},
		{
			// No targets API (404): a recording rule is measured; the
			// 5 min window holds too few samples, the 30 min one enough.
			name:      "no targets API, long interval",
			selectors: []string{"job:x:rate1m"},
			queries: map[string]string{
				countR:            vectorOf(`{"job":"api"}`),
				"job:x:rate1m":    vectorOf(rule),
				ruleSel + "[5m]":  matrixOf(rule, 1700000000, 1700000180),
				ruleSel + "[30m]": matrixOf(rule, 1699999640, 1699999820, 1700000000, 1700000180),
			},
			want: 3 * time.Minute,
			how:  []string{HowMeasured, "does not serve /api/v1/targets (HTTP 404)"},
		},
		{
			// One selector from the targets, one measured.
			name:      "both",
			selectors: []string{`y{kind="first"}`, "x_total"},
			queries: map[string]string{
				countY:          vectorOf(api0),
				countX:          vectorOf(renamed),
				"x_total":       vectorOf(series0),
				exact0 + "[5m]": matrixOf(series0, every10s...),
			},
			targets: targetsBody(activeTarget("api", "10.0.0.1:8080", "15s")),
			want:    15 * time.Second,
			how:     []string{HowTargets + " and " + HowMeasured},
		},
		{
			// An older server without scrapeInterval: the discovered label.
			name:      "discovered label",
			selectors: []string{"x_total"},
			queries:   map[string]string{countX: vectorOf(api0)},
			targets:   strings.Replace(targetsBody(activeTarget("api", "10.0.0.1:8080", "30s")), `"scrapeInterval": "30s",`, "", 1),
			want:      30 * time.Second,
			how:       []string{HowTargets},
		},
		{
			// A selector with no series yet (a service just restarted, a
			// driver's counter that comes with the load) takes the
			// interval of the targets its labels allow.
			name:      "one selector without series",
			selectors: []string{"x_total", "nothing"},
			queries:   map[string]string{countX: vectorOf(api0), countNil: vectorOf()},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s")),
			want:      5 * time.Second,
			how:       []string{HowTargets, "nothing has no series yet"},
		},
		{
			// Its job matcher picks the targets; the longest of them.
			name:      "no series yet, a job matcher",
			selectors: []string{`nothing{job="api"}`},
			queries:   map[string]string{`count by (job, instance) (nothing{job="api"})`: vectorOf()},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s"), activeTarget("api", "10.0.0.2:8080", "10s"), activeTarget("db", "10.0.0.3:9100", "1m")),
			want:      10 * time.Second,
			how:       []string{HowTargets, "the 2 active targets its labels allow"},
		},
		{
			// Without one, every target: the longest, an upper bound.
			name:      "no series yet, no job matcher",
			selectors: []string{"nothing"},
			queries:   map[string]string{countNil: vectorOf()},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s"), activeTarget("db", "10.0.0.3:9100", "1m")),
			want:      time.Minute,
			how:       []string{HowTargets, "the 2 active targets"},
		},
		{
			// No target its labels allow: skipped and named.
			name:      "no series, no target allowed",
			selectors: []string{"x_total", `nothing{job="web"}`},
			queries:   map[string]string{countX: vectorOf(api0), `count by (job, instance) (nothing{job="web"})`: vectorOf()},
			targets:   targetsBody(activeTarget("api", "10.0.0.1:8080", "5s")),
			want:      5 * time.Second,
			how:       []string{HowTargets, `no series now of nothing{job="web"}`},
		},
		{
			// No series at all: no data.
			name:      "no series",
			selectors: []string{"nothing"},
			queries:   map[string]string{countNil: vectorOf()},
			wantErr:   ErrNoData,
			how:       []string{"no series now of nothing"},
		},
		{
			// Too few samples even over 30 min: no data, saying why.
			name:      "too few samples",
			selectors: []string{"job:x:rate1m"},
			queries: map[string]string{
				countR:            vectorOf(`{"job":"api"}`),
				"job:x:rate1m":    vectorOf(rule),
				ruleSel + "[5m]":  matrixOf(rule, 1700000000),
				ruleSel + "[30m]": matrixOf(rule, 1699999000, 1700000000),
			},
			wantErr: ErrNoData,
			how:     []string{"2 samples in the last 30m0s, want at least 3", "does not serve /api/v1/targets"},
		},
		{
			// Not a selector: refused before any request.
			name:      "not a selector",
			selectors: []string{"rate(x_total[1m])"},
			wantErr:   ErrBadQuery,
			how:       []string{"is not a vector selector"},
		},
		{
			// Nothing to look up.
			name: "no selectors",
			how:  []string{"no selectors"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeAPI(t, c.queries, c.targets)
			cfg := fast(srv.URL)
			cfg.BearerToken = "s3cret"
			r := mustRemote(t, cfg)
			got, how, err := r.ScrapeInterval(context.Background(), c.selectors)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				for _, s := range c.how {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("err = %q, want it to contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("interval = %v, want %v", got, c.want)
			}
			if !strings.HasPrefix(how, c.how[0]) {
				t.Errorf("how = %q, want it to start with %q", how, c.how[0])
			}
			for _, s := range c.how[1:] {
				if !strings.Contains(how, s) {
					t.Errorf("how = %q, want it to contain %q", how, s)
				}
			}
		})
	}
}

func TestScrapeIntervalEmbedded(t *testing.T) {
	verifyNoLeaks(t)
	const interval = 250 * time.Millisecond
	driver := prometheus.NewRegistry()
	driver.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_test_total", Help: "driver counter"}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := StartEmbedded(ctx, EmbeddedConfig{
		Dir:            filepath.Join(t.TempDir(), "prometheus"),
		Targets:        []Target{{Job: "driver", Gatherer: driver}},
		ScrapeInterval: interval,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	waitFor(t, "8 scrapes", func() bool {
		n, ok := instantOK(e.Querier(), `count_over_time(up{job="driver"}[1m])`)
		return ok && n >= 8
	})
	got, how, err := e.Remote().ScrapeInterval(ctx, []string{`trigger_test_total`, `up{job="driver"}`})
	if err != nil {
		t.Fatal(err)
	}
	if !near(got.Seconds(), interval.Seconds(), 0.1) {
		t.Errorf("interval = %v, want %v ± 10%%", got, interval)
	}
	if !strings.HasPrefix(how, HowMeasured) || !strings.Contains(how, "does not serve /api/v1/targets") {
		t.Errorf("how = %q, want it measured, the embedded server serving no targets API", how)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestMedianGap(t *testing.T) {
	cases := []struct {
		name string
		ts   []model.Time
		want time.Duration
		ok   bool
	}{
		{"too few", []model.Time{0, 1000}, 0, false},
		{"three", []model.Time{0, 1000, 2000}, time.Second, true},
		// A missed scrape (a double gap) does not move the median.
		{"missed scrape", []model.Time{0, 5000, 15000, 20000, 25000}, 5 * time.Second, true},
		// An even number of gaps: the mean of the middle two.
		{"even", []model.Time{0, 200, 450, 700, 1000}, 250 * time.Millisecond, true},
	}
	for _, c := range cases {
		got, ok := medianGap(c.ts)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: medianGap(%v) = %v, %v; want %v, %v", c.name, c.ts, got, ok, c.want, c.ok)
		}
	}
}

func TestParseTargetIntervals(t *testing.T) {
	cases := []struct {
		name string
		body string
		want map[jobInstance]time.Duration
	}{
		{"prometheus format", targetsBody(activeTarget("api", "a:1", "15s"), activeTarget("db", "b:2", "1m30s")),
			map[jobInstance]time.Duration{{"api", "a:1"}: 15 * time.Second, {"db", "b:2"}: 90 * time.Second}},
		// Two targets with the same labels: the longer.
		{"duplicate labels", targetsBody(activeTarget("api", "a:1", "15s"), activeTarget("api", "a:1", "1m")),
			map[jobInstance]time.Duration{{"api", "a:1"}: time.Minute}},
		// No interval at all: 0, unknown.
		{"no interval", `{"status":"success","data":{"activeTargets":[{"labels":{"job":"api","instance":"a:1"}}]}}`,
			map[jobInstance]time.Duration{{"api", "a:1"}: 0}},
		{"none", targetsBody(), map[jobInstance]time.Duration{}},
	}
	for _, c := range cases {
		active, err := parseTargetIntervals([]byte(c.body))
		got := active.byPair()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := parseTargetIntervals([]byte(`<html>`)); !errors.Is(err, ErrServer) {
		t.Errorf("not JSON: err = %v, want ErrServer", err)
	}
}
