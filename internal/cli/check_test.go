package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// checkTarget is a target that counts the requests it gets and answers
// status.
func checkTarget(t *testing.T, status int) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// fakePrometheus answers every query with one sample and every scrape
// interval question with the targets API's 15 s.
func fakePrometheus(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.FormValue("query") == "1":
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}`)
		case strings.HasSuffix(r.URL.Path, "/targets"):
			fmt.Fprint(w, `{"status":"success","data":{"activeTargets":[{"labels":{"job":"svc","instance":"a:1"},"scrapeInterval":"15s","health":"up"}]}}`)
		case strings.Contains(r.FormValue("query"), "count by"):
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"svc","instance":"a:1"},"value":[1,"1"]}]}}`)
		default:
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"3"]}]}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runCheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"check"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// A scenario whose every step passes: exit 0, one request to the target,
// the query's scrape interval read from the server.
func TestCheckPasses(t *testing.T) {
	srv, hits := checkTarget(t, 200)
	prom := fakePrometheus(t)
	code, out, errs := runCheck(t, "--var", "url="+srv.URL, "--var", "prom="+prom.URL, filepath.Join("testdata", "check.hcl"))
	if code != ExitPassed || hits.Load() != 1 {
		t.Fatalf("exit %d, %d requests; want 0 and one\n%s%s", code, hits.Load(), out, errs)
	}
	for _, want := range []string{"ok    prometheus", "ok    query served           answers; scrape interval 15.0 s (from /api/v1/targets)", "ok    target ", "answered 200 (ok)", "every step passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// --no-request: nothing at all to the target.
	code, out, _ = runCheck(t, "--no-request", "--json", "--var", "url="+srv.URL, "--var", "prom="+prom.URL, filepath.Join("testdata", "check.hcl"))
	var steps []checkStepJSON
	if err := json.Unmarshal([]byte(out), &steps); err != nil || code != ExitPassed || hits.Load() != 1 || len(steps) == 0 {
		t.Errorf("--no-request --json: exit %d, %d requests, steps %+v (%v)", code, hits.Load(), steps, err)
	}
}

// Prometheus unreachable: exit 4 at once, nothing sent to the target.
func TestCheckUnreachablePrometheusSendsNothing(t *testing.T) {
	srv, hits := checkTarget(t, 200)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	code, out, errs := runCheck(t, "--var", "url="+srv.URL, "--var", "prom="+dead.URL, filepath.Join("testdata", "check.hcl"))
	if code != ExitHarness || hits.Load() != 0 || !strings.Contains(out, "FAIL  prometheus") || !strings.Contains(out, "nothing was sent to the target") {
		t.Errorf("exit %d, %d requests; want 4 and none\n%s%s", code, hits.Load(), out, errs)
	}
}

// A target that answers its request with a failure: exit 3, as a run that
// finds the baseline failing.
func TestCheckFailingTarget(t *testing.T) {
	srv, hits := checkTarget(t, 503)
	code, out, _ := runCheck(t, "--var", "url="+srv.URL, filepath.Join("testdata", "small-run.hcl"))
	if code != ExitInconclusive || hits.Load() != 1 || !strings.Contains(out, "answered 503 (503)") {
		t.Errorf("exit %d, %d requests; want 3 and one\n%s", code, hits.Load(), out)
	}
}

// A command the scenario runs: consent is needed first (exit 2, as run),
// then its program must be found (exit 4); neither sends anything.
func TestCheckCommands(t *testing.T) {
	srv, hits := checkTarget(t, 200)
	scenario := filepath.Join("testdata", "check-fault.hcl")
	code, out, _ := runCheck(t, "--var", "url="+srv.URL, scenario)
	if code != ExitUsage || !strings.Contains(out, "FAIL  consent") || !strings.Contains(out, "trigger-check-no-such-program start") {
		t.Errorf("without --allow-commands: exit %d\n%s", code, out)
	}
	code, out, _ = runCheck(t, "--allow-commands", "--var", "url="+srv.URL, scenario)
	if code != ExitHarness || !strings.Contains(out, `FAIL  command (fault "slow" start)`) || !strings.Contains(out, `ok    command (fault "slow" stop)`) {
		t.Errorf("with --allow-commands: exit %d\n%s", code, out)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent", hits.Load())
	}
}
