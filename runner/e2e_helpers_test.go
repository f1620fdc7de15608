package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// startSpecimen serves a specimen on a loopback port for the test's
// lifetime and returns its base URL.
func startSpecimen(t *testing.T, cfg specimen.Config) (string, *specimen.Server) {
	t.Helper()
	sp, err := specimen.StartLoopback(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Stop() })
	return sp.URL, sp.Server
}

// e2eScenario is a time-compressed trigger test against a specimen: τ_out
// 0.5 s, a short warmup and hold, the embedded Prometheus scraping every
// 500 ms. Fields left zero take the values below.
type e2eScenario struct {
	url            string
	baseline, k    float64
	spike, observe string
	retries        int
	on             string // retried classes
	tracers        bool
	extra          string // more HCL (layers, on_trap, gate settings)
	capacity       float64
	timeout        string // τ_out; "" = 500ms
	// scrapeInterval is the embedded Prometheus' ("" = 500ms).
	scrapeInterval    string
	maxRecovery       string
	prometheusAddress string // "" = embedded
	ingressQuery      string
	noWaitQuery       bool // leave the service's wait gauge out, as most services must
	// gate is more of the gate block's attributes (gate.baseline).
	gate string
	// target replaces the target block (a mix of requests); with capacity
	// 0 the service block gives pods = 2 alone (the requests' costs give C).
	target string
	// prometheus replaces the prometheus block's scrape, first_attempts,
	// served and abandoned lines (a server that is not the specimen).
	prometheus string
}

func (e e2eScenario) hcl() string {
	if e.spike == "" {
		e.spike = "6s"
	}
	if e.observe == "" {
		e.observe = "90s"
	}
	if e.scrapeInterval == "" {
		e.scrapeInterval = "500ms"
	}
	if e.timeout == "" {
		e.timeout = "500ms"
	}
	if e.on == "" {
		e.on = `"timeout", "5xx", "503", "connect"`
	}
	if e.prometheusAddress == "" {
		e.prometheusAddress = "embedded"
	}
	if e.ingressQuery == "" {
		e.ingressQuery = "sum(rate(specimen_ingress_total[3s]))"
	}
	wait := `wait            = "max(specimen_queue_wait_estimate_seconds)"`
	if e.noWaitQuery {
		wait = ""
	}
	tracers := ""
	if e.tracers {
		tracers = `tracers { rate = 4 }`
	}
	target := fmt.Sprintf("target {\n  url         = %q\n  allow_hosts = [\"127.0.0.1\"]\n}", e.url+"/work")
	if e.target != "" {
		target = e.target
	}
	service := fmt.Sprintf("service { capacity = %g }", e.capacity)
	if e.capacity == 0 {
		service = "service { pods = 2 }"
	}
	queries := fmt.Sprintf(`scrape          = ["%s/metrics"]
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"`, e.url)
	if e.prometheus != "" {
		queries = e.prometheus
	}
	gate := e.gate
	if e.maxRecovery != "" {
		gate += fmt.Sprintf("\n  max_recovery = %q", e.maxRecovery)
	}
	return fmt.Sprintf(`
scenario "e2e" { max_duration = "4m" }
%[17]s
client {
  timeout  = %[14]q
  arrivals = "uniform"
  retry {
    max_retries = %[2]d
    on          = [%[3]s]
  }
  %[4]s
}
%[5]s
load {
  baseline = %[6]g
  warmup   = "3s"
  spike {
    multiplier = %[7]g
    duration   = %[8]q
  }
  observe = %[9]q
}
prometheus {
  address         = %[10]q
  scrape_interval = %[15]q
  ingress         = %[11]q
  %[18]s
  %[16]s
}
recovery { hold = "3s" }
gate { %[12]s }
%[13]s
`, e.url, e.retries, e.on, tracers, service, e.baseline, e.k, e.spike, e.observe, e.prometheusAddress, e.ingressQuery, gate, e.extra, e.timeout, e.scrapeInterval, wait, target, queries)
}

func (e e2eScenario) parse(t *testing.T) *scenarios.Scenario {
	t.Helper()
	return parseSource(t, "e2e.hcl", e.hcl())
}

// parseSource parses a scenario's text, failing t with its rendered
// diagnostics.
func parseSource(t *testing.T, name, src string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse(name, []byte(src), nil)
	if err != nil {
		var se *scenarios.Error
		if errors.As(err, &se) {
			var b strings.Builder
			_ = se.Render(&b, 0, false)
			t.Fatalf("scenario: %s", b.String())
		}
		t.Fatal(err)
	}
	return s
}

// runSystemA runs e against a fresh specimen of System A (two pods of
// 100/s), failing t on a run error.
func runSystemA(t *testing.T, e e2eScenario) *Result {
	t.Helper()
	e.url, _ = startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	res, err := runE2E(t, context.Background(), e.parse(t))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runE2E runs a scenario and logs its timeline on failure.
func runE2E(t *testing.T, ctx context.Context, s *scenarios.Scenario) (*Result, error) {
	t.Helper()
	return runLogged(t, ctx, Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond})
}

// runLogged runs with opts, logs how long it took, and logs the timeline
// when the test fails (or runs verbose).
func runLogged(t *testing.T, ctx context.Context, opts Options) (*Result, error) {
	t.Helper()
	started := time.Now()
	res, err := Run(ctx, opts)
	t.Logf("run took %s, err %v", time.Since(started).Round(time.Millisecond), err)
	if res != nil && slices.Contains(res.Written, ResultFile) {
		checkReplay(t, opts.OutDir, err)
		keepRun(t, opts.OutDir)
	}
	if res != nil {
		t.Cleanup(func() {
			if t.Failed() || testing.Verbose() {
				logTimeline(t, res)
			}
		})
	}
	return res, err
}

func logTimeline(t *testing.T, res *Result) {
	d := res.Document
	t.Logf("verdict %s (%s), recovery %.1f s, A_fail %.2f", d.Verdict, d.Observation.VerdictReason, analysis.Value(d.RecoveryS), analysis.Value(d.Amplification.Measured))
	for _, r := range res.Timeline {
		t.Logf("%4.0f %-8s sent %4.0f retries %4.0f timeouts %4.0f rejected %4.0f ok-first %4.0f/%4.0f ingress %6.1f served %6.1f abandoned %6.1f wait %6.2f",
			r.TS, r.Phase, r.Sent, r.Retries, r.Timeouts, r.Rejected, r.FirstOK, r.FirstDone, r.IngressPerS, r.ServedPerS, r.AbandonedPerS, r.WaitS)
	}
	for _, e := range d.Observation.Estimates {
		t.Logf("estimate %-28s predicted %8.3f measured %8.3f", e.Name, analysis.Value(e.Predicted), analysis.Value(e.Measured))
	}
}

// consentAll is what an operator allows a test's own scenarios: their
// commands, and secrets to loopback.
var consentAll = convert.Consent{AllowCommands: true, SecretHosts: []string{"127.0.0.1", "localhost", "::1"}}

// testOf converts a scenario for Run, failing the test if it cannot be.
func testOf(t testing.TB, s *scenarios.Scenario) *convert.Test {
	t.Helper()
	test, err := convert.New(s)
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	return test
}

// serveLoopback serves h on a free loopback port until the test ends and
// returns its base URL.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// checkReplay judges a finished run's folder again (Judge) and fails t
// unless the replay gives the result.json the run wrote, byte for byte,
// and the run's error kind: every live run of the tests is a replay test
// of the referee.
func checkReplay(t *testing.T, dir string, runErr error) {
	t.Helper()
	recorded, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Errorf("replay: %v", err)
		return
	}
	res, jerr := Judge(JudgeOptions{Dir: dir})
	if res == nil {
		t.Errorf("replay: %v", jerr)
		return
	}
	again := filepath.Join(t.TempDir(), ResultFile)
	if err := report.WriteResult(again, res.Document); err != nil {
		t.Errorf("replay: %v", err)
		return
	}
	got, _ := os.ReadFile(again)
	if !bytes.Equal(got, recorded) {
		t.Errorf("trigger judge on the run's folder gives another result.json than the run wrote:\n%s", lineDiff(string(recorded), string(got)))
	}
	var want, have *Error
	errors.As(runErr, &want)
	errors.As(jerr, &have)
	if (want == nil) != (have == nil) || want != nil && (want.Kind != have.Kind || want.Error() != have.Error()) {
		t.Errorf("the run ended with %v; its replay with %v", runErr, jerr)
	}
}

// lineDiff lists the lines of a and b that differ, by position.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)) && len(out) < 40; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("%d: run    %s\n%d: replay %s", i+1, x, i+1, y))
		}
	}
	return strings.Join(out, "\n")
}

// keepRun copies a finished run's result.json and timeline.csv into
// $TRIGGER_KEEP_RUNS/<test name> when that is set: how the recorded runs
// under testdata/runs were made (testdata/runs/README.md).
func keepRun(t *testing.T, dir string) {
	t.Helper()
	keep := os.Getenv("TRIGGER_KEEP_RUNS")
	if keep == "" {
		return
	}
	to := filepath.Join(keep, strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()))
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ResultFile, report.TimelineFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replayIfWritten is checkReplay for a run that wrote its result.json
// (one stopped before any load writes none).
func replayIfWritten(t *testing.T, dir string, runErr error) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ResultFile)); err == nil {
		checkReplay(t, dir, runErr)
	}
}
