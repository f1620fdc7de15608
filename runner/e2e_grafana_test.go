package runner

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/prom"
)

// dashboardFile is the Grafana dashboard of examples/grafana.
const dashboardFile = "../examples/grafana/trigger-dashboard.json"

// dashboardQueries are every panel query of the dashboard, by panel title.
func dashboardQueries(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			out[p.Title] = append(out[p.Title], q.Expr)
		}
	}
	return out
}

// Every panel query of the Grafana dashboard returns data from a finished
// run's embedded Prometheus, opened from its folder afterwards as a user
// would point Grafana at it: the trigger_* series (the phase gauge among
// them, each phase seen), and the specimen's metrics under job "service".
// The dashboard's variables are filled in as Grafana would: $job =
// "trigger", $service_job = "service", $__rate_interval = 4 scrapes.
func TestE2EGrafanaDashboardQueries(t *testing.T) {
	skipShort(t)
	queries := dashboardQueries(t)
	if len(queries) < 8 {
		t.Fatalf("%d panels with queries in the dashboard", len(queries))
	}
	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sp.Stop() }()
	e := e2eScenario{url: sp.URL, capacity: 200, baseline: 50, k: 5, retries: 2, spike: "3s", observe: "12s", tracers: true}
	res, err := runE2E(t, context.Background(), e.parse(t))
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	end := res.Start.Add(time.Duration(res.Document.Observation.EndS * float64(time.Second)))

	db, err := prom.OpenRecorded(context.Background(), filepath.Join(res.OutDir, "prometheus"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill := strings.NewReplacer("$__rate_interval", "2s", "$service_job", "service", "$job", "trigger")
	for title, exprs := range queries {
		for _, expr := range exprs {
			q := fill.Replace(expr)
			series := queryRange(t, db.URL(), db.Token(), q, res.Start, end)
			if len(series) == 0 {
				t.Errorf("panel %q: %s returned no data", title, q)
				continue
			}
			if title == "Phase" {
				seen := map[string]bool{}
				for _, s := range series {
					for _, v := range s.values {
						if v == 1 {
							seen[s.labels["phase"]] = true
						}
					}
				}
				for _, p := range []analysis.Phase{analysis.PhaseWarmup, analysis.PhaseSpike, analysis.PhaseObserve} {
					if !seen[string(p)] {
						t.Errorf("panel Phase: phase %s never 1 (%v)", p, seen)
					}
				}
			}
		}
	}
}

type rangeSeries struct {
	labels map[string]string
	values []float64 // the finite values
}

// queryRange evaluates q over [from, to] every second through the
// Prometheus HTTP API at base with the bearer token, as Grafana does, and
// returns the series with at least one finite value.
func queryRange(t *testing.T, base, token, q string, from, to time.Time) []rangeSeries {
	t.Helper()
	v := url.Values{"query": {q}, "start": {strconv.FormatInt(from.Unix(), 10)}, "end": {strconv.FormatInt(to.Unix()+1, 10)}, "step": {"1"}}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/api/v1/query_range?"+v.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct {
			Result []struct {
				Metric map[string]string
				Values [][2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("%s: %v %s %s", q, err, body.Status, body.Error)
	}
	var out []rangeSeries
	for _, r := range body.Data.Result {
		s := rangeSeries{labels: r.Metric}
		for _, p := range r.Values {
			str, _ := p[1].(string)
			if f, err := strconv.ParseFloat(str, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				s.values = append(s.values, f)
			}
		}
		if len(s.values) > 0 {
			out = append(out, s)
		}
	}
	return out
}
