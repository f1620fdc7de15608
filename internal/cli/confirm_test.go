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

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// touching is a scenario that touches, besides its load, a scrape
// target, a stop condition's Prometheus, a fault's commands with a
// sensitive value in their environment, an on_trap command hiding behind a carriage
// return and an erase-line sequence, and a remote Prometheus with a token
// from the environment.
const touching = `
variable "token" {
  default   = "s3cr3t"
  sensitive = true
}
scenario "touch" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = 100 }
load {
  baseline = 50
  observe  = "30s"
}
fault "slow" {
  start    = ["kubectl", "scale", "deploy/checkout", "--replicas=1"]
  stop     = ["kubectl", "scale", "deploy/checkout", "--replicas=4"]
  env      = { KUBE_TOKEN = var.token }
  duration = "10s"
  capacity = 0.25
}
prometheus {
  address = "http://prom.staging:9090"
  ingress = "sum(rate(requests_total[1m]))"
  auth { bearer_token_env = "PROM_TOKEN" }
}
stop_when "burn" {
  query   = "slo:burn_rate > 10"
  address = "http://slo.staging:9090"
}
on_trap {
  action  = "command"
  command = ["sh", "-c", "rm -rf ~/work\r\u001b[2Kecho harmless"]
}
`

// The confirmation names everything the run will touch outside the
// process: the target, the Prometheus it queries, the stop conditions,
// every command (escaped: the on_trap command's carriage return and
// erase-line sequence used to reach the terminal and show "echo
// harmless" alone), every secret and where it goes, and no secret's value.
func TestConfirmationListsWhatTheRunTouches(t *testing.T) {
	s, err := scenarios.Parse(filepath.Join(t.TempDir(), "touch.hcl"), []byte(touching), nil)
	if err != nil {
		t.Fatal(err)
	}
	test, err := convert.New(s)
	if err != nil {
		t.Fatal(err)
	}
	got := confirmation(test)
	for _, want := range []string{
		"http://127.0.0.1:8080/work", "for 10s",
		"stops when     burn (slo:burn_rate > 10) on http://slo.staging:9090",
		"contacts       http://prom.staging:9090 (queries)",
		`runs           fault "slow" start: kubectl scale deploy/checkout --replicas=1   in `,
		`with environment KUBE_TOKEN`,
		`hands secret   sensitive variable token (in environment variable KUBE_TOKEN) to fault "slow" start and stop`,
		`runs           fault "slow" stop: kubectl scale deploy/checkout --replicas=4`,
		`runs           on_trap: sh -c $'rm -rf ~/work\r\x1b[2Kecho harmless'`,
		"sends secret   environment variable PROM_TOKEN (bearer token) to http://prom.staging:9090",
		"--allow-commands", "--secret-hosts prom.staging",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("confirmation lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\r\x1b") || strings.Contains(got, "s3cr3t") {
		t.Errorf("confirmation holds a control character or the secret:\n%q", got)
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

// --yes alone runs no command: a scenario with a fault is refused before
// the question (exit 2), naming its commands and --allow-commands, and the
// start command never runs.
func TestRunYesAloneRunsNoCommand(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	src := `
scenario "cmd" {}
target {
  url         = "` + srv.URL + `/"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "500ms" }
service { capacity = 100 }
load {
  baseline = 10
  warmup   = "1s"
  observe  = "2s"
}
fault "f" {
  start    = ["touch", "` + marker + `"]
  stop     = ["true"]
  duration = "1s"
  capacity = 0.5
}
`
	file := filepath.Join(dir, "cmd.hcl")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"run", "--yes", "--out", filepath.Join(dir, "out"), file}, &out, &errb)
	if code != ExitUsage || !strings.Contains(errb.String(), "--allow-commands") || !strings.Contains(errb.String(), "touch "+marker) {
		t.Errorf("exit %d; want 2 naming the command and --allow-commands\n%s", code, errb.String())
	}
	if _, err := os.Stat(marker); err == nil || hits.Load() != 0 {
		t.Errorf("the command ran or load was sent (%d attempts)", hits.Load())
	}
}
