package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/scenarios"
)

// findPrometheus returns the path of a real Prometheus server, skipping
// the test (or failing it in CI, where .ci/run sets
// TRIGGER_REQUIRE_PROMETHEUS) when there is none.
func findPrometheus(t *testing.T) string {
	path, skip, err := staging.LookBinary("prometheus", staging.RequirePrometheusEnv)
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip(skip)
	}
	return path
}

// freePort finds a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	p, err := staging.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startPrometheus runs a real Prometheus server on a free loopback port
// scraping the given targets every second, and stops it when the test
// ends. It returns the server's base URL.
func startPrometheus(t *testing.T, bin string, targets map[string]string) string {
	p, err := staging.StartPrometheus(context.Background(), staging.PrometheusConfig{Binary: bin, ScrapeInterval: time.Second, Jobs: targets})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p.URL
}

// The same trigger test read from a real Prometheus server and from the
// embedded one agrees on the verdict and the measured amplification.
func TestE2ERealPrometheusAgreesWithEmbedded(t *testing.T) {
	skipShort(t)
	bin := findPrometheus(t)
	// System A at ρ = 0.4 with two retries: A·ρ = 1.2, trapped.
	url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	driverPort := freePort(t)
	promURL := startPrometheus(t, bin, map[string]string{
		"service": strings.TrimPrefix(url, "http://"),
		"trigger": fmt.Sprintf("127.0.0.1:%d", driverPort),
	})
	base := e2eScenario{url: url, capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "10s",
		scrapeInterval: "1s"}

	remote := base
	remote.prometheusAddress = promURL
	// trigger check against the real server first: every step passes, and
	// each query's scrape interval comes from its targets API.
	steps, err := Check(context.Background(), CheckOptions{Run: Options{Test: testOf(t, remote.parse(t)), Logf: t.Logf}})
	if err != nil {
		t.Fatal(err)
	}
	queries := 0
	for _, s := range steps {
		if !s.OK {
			t.Errorf("check: %s failed: %s", s.Name, s.Detail)
		}
		if strings.HasPrefix(s.Name, "query ") {
			queries++
			if !strings.Contains(s.Detail, "from /api/v1/targets") && !strings.Contains(s.Detail, "driver's own") {
				t.Errorf("check: %s: %s; want the interval from the targets API", s.Name, s.Detail)
			}
		}
	}
	if queries == 0 || steps[len(steps)-1].Name != "target" {
		t.Errorf("check steps %+v: want its queries and the target's request", steps)
	}
	res, err := Run(context.Background(), Options{Test: testOf(t, remote.parse(t)), OutDir: t.TempDir(), Logf: t.Logf,
		MetricsListen: fmt.Sprintf("127.0.0.1:%d", driverPort)})
	if err != nil {
		t.Fatalf("run against the real prometheus: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logTimeline(t, res)
		}
	})
	// The first run left its specimen trapped: the embedded run gets a fresh one.
	fresh := base
	fresh.url, _ = startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	embedded, err := runE2E(t, context.Background(), fresh.parse(t))
	if err != nil {
		t.Fatal(err)
	}
	r, e := res.Document, embedded.Document
	if r.Verdict != e.Verdict || r.Verdict != analysis.VerdictTrapped {
		t.Errorf("verdict: real %s, embedded %s; want both trapped", r.Verdict, e.Verdict)
	}
	ar, ae := analysis.Value(r.Amplification.Measured), analysis.Value(e.Amplification.Measured)
	if math.IsNaN(ar) || math.Abs(ar/ae-1) > 0.1 || math.Abs(ar-3) > 0.45 {
		t.Errorf("A_fail: real %.3f, embedded %.3f; want both 3 ± 15 %% and within 10 %% of each other", ar, ae)
	}
	t.Logf("real prometheus: verdict %s A_fail %.3f; embedded: verdict %s A_fail %.3f", r.Verdict, ar, e.Verdict, ae)
}

// Debian's Prometheus killed in the middle of a run (the specimen behind
// it recovering, the gate asking for an amplification): the run has no
// verdict to give, and the gate does not pass on the scenario's belief.
func TestE2ERealPrometheusDiesMidRun(t *testing.T) {
	skipShort(t)
	bin := findPrometheus(t)
	url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	p, err := staging.StartPrometheus(context.Background(), staging.PrometheusConfig{Binary: bin, ScrapeInterval: time.Second,
		Jobs: map[string]string{"service": strings.TrimPrefix(url, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	// System A at ρ = 0.2 with one retry: A·ρ = 0.4, recovers.
	s := e2eScenario{url: url, capacity: 200, baseline: 40, k: 5, retries: 1, spike: "4s", observe: "20s",
		scrapeInterval: "1s", prometheusAddress: p.URL}.parse(t)
	s.Gate.MaxAmplification = 4
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		time.Sleep(8 * time.Second) // the preflight, and a few seconds of load
		_ = p.Stop()
	}()
	dir := t.TempDir()
	_, err = Run(ctx, Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
	replayIfWritten(t, dir, err)
	<-killed
	wantMetricsMissing(t, err, dir)
}

// A stop condition evaluated by Debian's Prometheus: it turns true at a
// known instant, and the run stops its load and says which brake fired.
func TestE2EStopConditionOnRealPrometheus(t *testing.T) {
	skipShort(t)
	bin := findPrometheus(t)
	url, sp := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	promURL := startPrometheus(t, bin, map[string]string{"service": strings.TrimPrefix(url, "http://")})
	s := e2eScenario{url: url, capacity: 200, baseline: 40, k: 2, retries: 1, spike: "30s"}.parse(t)
	trueAt := time.Unix(time.Now().Add(10*time.Second).Unix(), 0)
	s.StopWhen = []scenarios.StopCondition{{Name: "clock", Address: promURL, Timeout: 2 * time.Second,
		Query: fmt.Sprintf("vector(time()) > %d", trueAt.Unix())}}
	res, err := runE2E(t, context.Background(), s)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindStopped {
		t.Fatalf("err = %v, want stopped", err)
	}
	sb := res.Document.Observation.StoppedBy
	if sb == nil || sb.By != "stop_when.clock" {
		t.Fatalf("stopped_by = %+v", sb)
	}
	fired := res.Start.Add(time.Duration(sb.AtS * float64(time.Second)))
	t.Logf("fired %s after the condition became true; specimen ingress %d", fired.Sub(trueAt).Round(time.Millisecond), sp.Stats().IngressFirst)
	if fired.Before(trueAt) || fired.Sub(trueAt) > loadStopBound {
		t.Errorf("fired at %s, the condition became true at %s", fired, trueAt)
	}
}
