package runner

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// requirePrometheusEnv makes the real-Prometheus test fail instead of skip
// when the binary is missing; .ci/run sets it, so in CI the test must run.
const requirePrometheusEnv = "TRIGGER_REQUIRE_PROMETHEUS"

// findPrometheus returns the path of a real Prometheus server, skipping
// the test (or failing it in CI) when there is none.
func findPrometheus(t *testing.T) string {
	path, err := exec.LookPath("prometheus")
	if err == nil {
		return path
	}
	if os.Getenv(requirePrometheusEnv) != "" {
		t.Fatalf("%s is set but no prometheus binary is on PATH: %v", requirePrometheusEnv, err)
	}
	t.Skip("no prometheus binary on PATH: install Debian's prometheus package to run this test (.ci/run does)")
	return ""
}

// freePort finds a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startPrometheus runs a real Prometheus server on a free loopback port
// with a generated configuration scraping the given targets every second,
// and stops it when the test ends. It returns the server's base URL.
func startPrometheus(t *testing.T, bin string, targets map[string]string) string {
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n")
	for job, addr := range targets {
		fmt.Fprintf(&cfg, "  - job_name: %q\n    static_configs:\n      - targets: [%q]\n", job, addr)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin,
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus at %s not ready after 30 s: %v", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
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
	res, err := Run(context.Background(), Options{Scenario: remote.parse(t), OutDir: t.TempDir(), Logf: t.Logf,
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
