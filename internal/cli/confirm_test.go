package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// The confirmation names everything the run will touch outside the
// process: the target, the scrape targets, the Prometheus it queries, the
// stop conditions and an on_trap command.
func TestConfirmationListsWhatTheRunTouches(t *testing.T) {
	s := &scenarios.Scenario{
		Target: scenarios.Target{URL: "http://127.0.0.1:8080/work"},
		Load:   scenarios.LoadProfile{Baseline: 50, Spike: scenarios.Spike{Multiplier: 5, Duration: 10 * time.Second}},
		Prometheus: &scenarios.Prometheus{Address: "embedded", Scrape: []string{"http://127.0.0.1:8080/metrics"},
			ScrapeInterval: 2 * time.Second},
		StopWhen: []scenarios.StopCondition{{Name: "burn", Query: "slo:burn_rate > 10", Address: "http://prom.staging:9090"}},
		OnTrap:   &scenarios.OnTrap{Action: vocab.TrapCommand, Command: []string{"kubectl", "rollout", "restart", "deploy/checkout", "--token=s3cr3t"}},
		Secrets:  []string{"s3cr3t"},
	}
	got := confirmation(s)
	for _, want := range []string{
		"http://127.0.0.1:8080/work", "250 first attempts/s for 10s",
		"scrapes   http://127.0.0.1:8080/metrics every 2s",
		"stops when burn (slo:burn_rate > 10) on http://prom.staging:9090",
		"on a trap, runs: kubectl rollout restart deploy/checkout --token=(sensitive)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, got)
		}
	}
}

// runScenario runs testdata/small-run.hcl against url with no Prometheus,
// with args; the run is bounded by the scenario's own limits.
func runScenario(t *testing.T, url string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(append([]string{"run", "--yes", "--var", "url=" + url}, args...), filepath.Join("testdata", "small-run.hcl"))
	code := Main(context.Background(), args, &out, &errb)
	return code, errb.String()
}

// An abort file present before the run: exit 5, nothing sent.
func TestRunAbortFileExitsFive(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	abort := filepath.Join(t.TempDir(), "STOP")
	if err := os.WriteFile(abort, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runScenario(t, srv.URL, "--abort-file", abort, "--out", filepath.Join(t.TempDir(), "out"))
	if code != ExitStopped || hits.Load() != 0 {
		t.Errorf("exit %d with %d requests sent; want exit 5 and none\n%s", code, hits.Load(), stderr)
	}
}

// A folder holding a run is refused (exit 2) unless --overwrite.
func TestRunRefusesAUsedOutFolder(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "result.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runScenario(t, srv.URL, "--out", out)
	if code != ExitUsage || hits.Load() != 0 || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("exit %d with %d requests sent; want exit 2 naming --overwrite\n%s", code, hits.Load(), stderr)
	}
}
