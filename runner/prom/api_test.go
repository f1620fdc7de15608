package prom

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/tsdb"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/api")

// t0 is the first sample of the API fixture, in Unix milliseconds.
const t0 = 1_700_000_000_000

// fixtureAPI returns an apiServer over a TSDB holding fixed samples:
// x_total{job="a"} = 10·k and x_total{job="b"} = 5·k at t0 + k s for
// k = 0..60, g{job="a"} = 1.5 and g_inf{job="a"} = +Inf at the same times.
func fixtureAPI(t *testing.T) *apiServer {
	t.Helper()
	opts := tsdb.DefaultOptions()
	opts.RetentionDuration = 0
	db, err := tsdb.Open(t.TempDir(), slog.New(slog.DiscardHandler), nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	app := db.Appender(context.Background())
	for k := range int64(61) {
		ts := t0 + k*1000
		for _, s := range []struct {
			l labels.Labels
			v float64
		}{
			{labels.FromStrings("__name__", "x_total", "job", "a", "instance", "i1"), float64(10 * k)},
			{labels.FromStrings("__name__", "x_total", "job", "b", "instance", "i2"), float64(5 * k)},
			{labels.FromStrings("__name__", "g", "job", "a", "instance", "i1"), 1.5},
			{labels.FromStrings("__name__", "g_inf", "job", "a", "instance", "i1"), math.Inf(1)},
		} {
			if _, err := app.Append(0, s.l, ts, s.v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := app.Commit(); err != nil {
		t.Fatal(err)
	}
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1e6, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	a := newAPI(db, engine, 5*time.Minute, time.Second)
	a.now = func() time.Time { return time.UnixMilli(t0 + 30_000) }
	return a
}

func TestAPIGolden(t *testing.T) {
	a := fixtureAPI(t)
	h := a.handler()
	sec := func(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
	cases := []struct {
		name, method, path string
		form               url.Values
	}{
		// A vector of two series, time given in seconds.
		{"query_vector", "GET", "/api/v1/query", url.Values{"query": {`sum by (job) (rate(x_total[10s]))`}, "time": {sec(t0 + 30_000)}}},
		// time defaults to now; POST with a form body, as client_golang sends.
		{"query_post_default_time", "POST", "/api/v1/query", url.Values{"query": {`g`}}},
		// A scalar, NaN and +Inf as Prometheus writes them.
		{"query_scalar", "GET", "/api/v1/query", url.Values{"query": {`1 + 1`}, "time": {sec(t0)}}},
		{"query_nan", "GET", "/api/v1/query", url.Values{"query": {`0/0`}, "time": {sec(t0)}}},
		{"query_inf", "GET", "/api/v1/query", url.Values{"query": {`g_inf`}, "time": {sec(t0)}}},
		// A string literal.
		{"query_string", "GET", "/api/v1/query", url.Values{"query": {`"hello"`}, "time": {sec(t0)}}},
		// RFC 3339 time; an empty result is [], not null.
		{"query_empty", "GET", "/api/v1/query", url.Values{"query": {`nope`}, "time": {"2023-11-14T22:13:20Z"}}},
		// Parse error: 400 bad_data naming the parameter.
		{"query_parse_error", "GET", "/api/v1/query", url.Values{"query": {`sum(rate(x[5s])`}}},
		// Execution error: 422.
		{"query_exec_error", "GET", "/api/v1/query", url.Values{"query": {`label_replace(label_replace(x_total, "job", "z", "", ""), "instance", "z", "", "")`}, "time": {sec(t0)}}},
		// A bad time.
		{"query_bad_time", "GET", "/api/v1/query", url.Values{"query": {`g`}, "time": {"yesterday"}}},
		// A matrix: step as seconds.
		{"range_matrix", "GET", "/api/v1/query_range", url.Values{"query": {`x_total{job="a"}`}, "start": {sec(t0)}, "end": {sec(t0 + 4000)}, "step": {"2"}}},
		// A Prometheus duration as the step, and an empty matrix.
		{"range_empty", "GET", "/api/v1/query_range", url.Values{"query": {`nope`}, "start": {sec(t0)}, "end": {sec(t0 + 4000)}, "step": {"2s"}}},
		// Range errors: zero step, end before start, too many points.
		{"range_zero_step", "GET", "/api/v1/query_range", url.Values{"query": {`g`}, "start": {sec(t0)}, "end": {sec(t0 + 4000)}, "step": {"0"}}},
		{"range_end_before_start", "GET", "/api/v1/query_range", url.Values{"query": {`g`}, "start": {sec(t0 + 4000)}, "end": {sec(t0)}, "step": {"1"}}},
		{"range_too_many_points", "GET", "/api/v1/query_range", url.Values{"query": {`g`}, "start": {sec(t0)}, "end": {sec(t0 + 86_400_000)}, "step": {"1"}}},
		// Queries over the cost bounds are refused before evaluation, 400
		// bad_data (the audit's query asked the engine for about 69 GB).
		{"query_too_costly", "GET", "/api/v1/query", url.Values{"query": {`count_over_time(up[100d:1ms])`}, "time": {sec(t0)}}},
		{"query_too_deep", "GET", "/api/v1/query", url.Values{"query": {strings.Repeat("-", 200) + "g"}, "time": {sec(t0)}}},
		{"range_too_costly", "GET", "/api/v1/query_range", url.Values{"query": {`max_over_time(g[1m:1ms])`}, "start": {sec(t0)}, "end": {sec(t0 + 60_000)}, "step": {"1"}}},
		{"range_step_under_a_millisecond", "GET", "/api/v1/query_range", url.Values{"query": {`g`}, "start": {sec(t0)}, "end": {sec(t0 + 1)}, "step": {"0.0001"}}},
		// Label names, all and for a selector.
		{"labels", "GET", "/api/v1/labels", nil},
		{"labels_match", "GET", "/api/v1/labels", url.Values{"match[]": {`g`}}},
		// Label values.
		{"label_values_job", "GET", "/api/v1/label/job/values", nil},
		{"label_values_name", "GET", "/api/v1/label/__name__/values", url.Values{"match[]": {`{job="a"}`}}},
		// Series for two selectors, and the error without any.
		{"series", "GET", "/api/v1/series", url.Values{"match[]": {`x_total`, `g`}}},
		{"series_no_match", "GET", "/api/v1/series", nil},
		// Build information (goVersion normalised).
		{"buildinfo", "GET", "/api/v1/status/buildinfo", nil},
		// Metadata is empty.
		{"metadata", "GET", "/api/v1/metadata", nil},
		// Exemplars are not stored: an empty list, as Grafana expects.
		{"exemplars", "GET", "/api/v1/query_exemplars", url.Values{"query": {"g"}}},
		// Only GET and POST.
		{"method_not_allowed", "PUT", "/api/v1/query", url.Values{"query": {"1"}}},
	}
	for _, c := range cases {
		var req *http.Request
		if c.method == "POST" {
			req = httptest.NewRequest(c.method, c.path, strings.NewReader(c.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			u := c.path
			if len(c.form) > 0 {
				u += "?" + c.form.Encode()
			}
			req = httptest.NewRequest(c.method, u, nil)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := fmt.Sprintf("%d %s\n%s\n", rec.Code, rec.Header().Get("Content-Type"),
			strings.ReplaceAll(rec.Body.String(), runtime.Version(), "GOVERSION"))
		path := filepath.Join("testdata", "api", c.name+".golden")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", c.name, err)
		}
		if got != string(want) {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, want)
		}
	}
}
