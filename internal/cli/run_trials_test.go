package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/trials"
)

// --trials out of bounds, and --all-trials or --rest without it, are
// usage errors (exit 2) before anything is sent.
func TestRunTrialsFlags(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	for _, args := range [][]string{
		{"--trials", "1"},
		{"--trials", "1001"},
		{"--trials", "-3"},
		{"--all-trials"},
		{"--rest", "1s"},
		{"--trials", "3", "--rest", "-1s"},
	} {
		code, stderr := runScenario(t, srv.URL, append(args, "--out", filepath.Join(t.TempDir(), "out"))...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent", hits.Load())
	}
}

// A series the abort file stops before its first trial: exit 5, nothing
// sent, --json prints trials.json as written, which says why.
func TestRunTrialsAbortFile(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	abort := filepath.Join(t.TempDir(), "STOP")
	if err := os.WriteFile(abort, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--yes", "--var", "url=" + srv.URL, "--trials", "4", "--json", "--abort-file", abort, "--out", out, filepath.Join("testdata", "small-run.hcl")}
	code := Main(context.Background(), args, &stdout, &stderr)
	if code != ExitStopped || hits.Load() != 0 {
		t.Fatalf("exit %d with %d requests; want 5 and none\n%s", code, hits.Load(), stderr.String())
	}
	var d analysis.TrialsDocument
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatalf("stdout is not trials.json: %v\n%s", err, stdout.String())
	}
	if d.Kind != "trials" || d.TrialsAsked != 4 || d.TrialsRun != 0 || d.Outcome != analysis.TrialsStopped || !strings.Contains(d.StoppedReason, "abort file") {
		t.Errorf("document %+v", d)
	}
	if _, err := os.Stat(filepath.Join(out, trials.File)); err != nil {
		t.Error(err)
	}
}

// One run of a scenario whose gate has max_trap_probability says, before
// it starts, that it does not judge it and how many clean trials would.
func TestRunSingleWarnsTrapProbability(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	src, err := os.ReadFile(filepath.Join("testdata", "small-run.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gate.hcl")
	if err := os.WriteFile(path, append(src, "\ngate {\n  max_trap_probability = 0.1\n}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	abort := filepath.Join(t.TempDir(), "STOP")
	if err := os.WriteFile(abort, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"run", "--yes", "--var", "url=" + srv.URL, "--abort-file", abort, "--out", filepath.Join(t.TempDir(), "out"), path}, &stdout, &stderr)
	if code != ExitStopped {
		t.Errorf("exit %d, want 5 (the abort file)", code)
	}
	if !strings.Contains(stderr.String(), "not judged by one run: it takes --trials N with N ≥ 35") {
		t.Errorf("stderr does not warn:\n%s", stderr.String())
	}
}

// A series' outcome is its exit code; a broken series exits as a run.
func TestTrialsExit(t *testing.T) {
	for outcome, want := range map[string]int{
		analysis.TrialsPassed: ExitPassed, analysis.TrialsFailed: ExitGateFailed, analysis.TrialsInconclusive: ExitInconclusive,
		analysis.TrialsStopped: ExitStopped, analysis.TrialsInterrupted: ExitInterrupted, analysis.TrialsHarness: ExitHarness, "": ExitHarness,
	} {
		if got := exitCode(trialsExit(analysis.TrialsDocument{Outcome: outcome}, nil)); got != want {
			t.Errorf("outcome %q: exit %d, want %d", outcome, got, want)
		}
	}
	err := &runner.Error{Kind: runner.KindUsage, Err: errors.New("folder used")}
	if got := exitCode(trialsExit(analysis.TrialsDocument{Outcome: analysis.TrialsHarness}, err)); got != ExitUsage {
		t.Errorf("a usage error: exit %d, want 2", got)
	}
}

// exitCode is err's exit code (0 for nil).
func exitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

// Without --yes a series asks once, naming the trials and the longest
// they can take; with no terminal to ask on it is refused (exit 2) and
// nothing is sent.
func TestRunTrialsConfirmation(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--var", "url=" + srv.URL, "--trials", "3", "--rest", "5s", "--out", filepath.Join(t.TempDir(), "out"), filepath.Join("testdata", "small-run.hcl")}
	code := Main(context.Background(), args, &stdout, &stderr)
	if code != ExitUsage || hits.Load() != 0 {
		t.Fatalf("exit %d with %d requests; want 2 and none", code, hits.Load())
	}
	if got := stderr.String(); !strings.Contains(got, "Up to 3 trigger tests") || !strings.Contains(got, "a rest of 5s") || strings.Count(got, "Up to") != 1 {
		t.Errorf("the question does not name the trials once:\n%s", got)
	}
}
