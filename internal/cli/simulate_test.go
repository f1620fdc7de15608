package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
)

// runSub calls Main in a subtest of its own, so that several calls in one
// test each start from the repository root (run changes directory until
// its test ends).
func runSub(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Run(strings.Join(args, " "), func(t *testing.T) { code, stdout, stderr = run(t, args...) })
	return code, stdout, stderr
}

// simulate --model request runs the request-level model: its verdicts
// agree with the fluid model on the shipped scenarios, exit codes follow
// the gate, and the JSON document names the model and carries a timeline.
func TestSimulateRequest(t *testing.T) {
	for _, tc := range shipped {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "simulate", "--model", "request", "--json", "scenarios/"+tc.name+".hcl")
			doc := decode[analysis.Document](t, code, stdout, stderr)
			if code != tc.code || doc.Verdict != tc.verdict || doc.Model != "request" || doc.Observation == nil ||
				doc.Observation.Source != "request" || len(doc.Timeline) < 100 || doc.Runs != nil {
				t.Errorf("exit %d verdict %s model %q timeline %d; want exit %d, %s", code, doc.Verdict, doc.Model, len(doc.Timeline), tc.code, tc.verdict)
			}
		})
	}
}

// The same seed prints the same document; another seed, another run.
func TestSimulateRequestSeed(t *testing.T) {
	_, a, _ := runSub(t, "simulate", "--model", "request", "--json", "--seed", "5", "scenarios/recovers.hcl")
	_, b, _ := runSub(t, "simulate", "--model", "request", "--json", "--seed", "5", "scenarios/recovers.hcl")
	_, c, _ := runSub(t, "simulate", "--model", "request", "--json", "--seed", "6", "scenarios/recovers.hcl")
	if a != b || a == c || a == "" {
		t.Errorf("seed 5 twice equal: %v; seeds 5 and 6 differ: %v", a == b, a != c)
	}
}

// --runs N: the document shows the median run and the spread of all N.
func TestSimulateRequestRuns(t *testing.T) {
	code, stdout, stderr := runSub(t, "simulate", "--model", "request", "--json", "--runs", "5", "--seed", "3", "scenarios/recovers.hcl")
	doc := decode[analysis.Document](t, code, stdout, stderr)
	sp := doc.Runs
	if code != ExitPassed || sp == nil || sp.Runs != 5 || sp.FirstSeed != 3 || sp.Verdicts[analysis.VerdictRecovered] != 5 ||
		sp.RecoveryMedianS == nil || doc.RecoveryS == nil || *doc.RecoveryS != *sp.RecoveryMedianS {
		t.Fatalf("exit %d, runs %+v, recovery %v", code, sp, analysis.Value(doc.RecoveryS))
	}
	_, text, _ := runSub(t, "simulate", "--model", "request", "--runs", "3", "scenarios/trapped.hcl")
	for _, want := range []string{"Runs           3 seeds from 1: trapped 3; trapped in 100 %", "recovery min never, median never, max never", "above: the median run (seed", "Model          request:", "Timeline (every"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

// Under a declared concurrency law the request model serves every request
// in L₀ + N/C: near the law's boundary some seeds trap the service and
// others do not (docs/model.md, "Latency laws and what sustains a trap"),
// where the queue law at the same capacity never times anyone out.
func TestSimulateRequestConcurrencyLaw(t *testing.T) {
	code, stdout, stderr := runSub(t, "simulate", "--model", "request", "--json", "--runs", "20", "internal/cli/testdata/concurrency-law.hcl")
	if code == ExitUsage || code == ExitHarness {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc analysis.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	sp := doc.Runs
	if sp == nil || sp.Verdicts[analysis.VerdictTrapped] == 0 || sp.Verdicts[analysis.VerdictTrapped] == 20 {
		t.Errorf("20 seeds at the boundary: %+v; want some trapped and some not", sp)
	}
	src, err := os.ReadFile("testdata/concurrency-law.hcl")
	if err != nil {
		t.Fatal(err)
	}
	queue := filepath.Join(t.TempDir(), "queue-law.hcl")
	if err := os.WriteFile(queue, []byte(strings.Replace(string(src), `"concurrency"`, `"queue"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runSub(t, "simulate", "--model", "request", "--json", "--runs", "5", queue)
	if code == ExitUsage || code == ExitHarness {
		t.Fatalf("queue law: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Runs == nil || doc.Runs.Verdicts[analysis.VerdictNoTrigger] != 5 {
		t.Errorf("the queue law at C = 100/s: %+v; want no trigger in every seed", doc.Runs)
	}
}

// The request model's text output for a seed is pinned.
func TestSimulateRequestText(t *testing.T) {
	code, stdout, _ := run(t, "simulate", "--model", "request", "--seed", "1", "scenarios/recovers.hcl")
	if code != ExitPassed {
		t.Errorf("exit %d", code)
	}
	t.Chdir("internal/cli")
	golden(t, "simulate-request-recovers.txt", stdout)
}

// simulate --tipping sweeps the collapse law's service: from flags, or
// with θ and R taken from a scenario; the text is pinned.
func TestSimulateTipping(t *testing.T) {
	code, stdout, stderr := runSub(t, "simulate", "--tipping", "--theta", "5", "--runs", "8", "--json")
	res := decode[request.TippingResult](t, code, stdout, stderr)
	lc, _ := analysis.CollapseCeiling(1, 5)
	if code != ExitPassed || res.Theta != 5 || res.Attempts != 0 || res.Runs != 8 || res.LambdaC != lc || len(res.Points) != 16 ||
		res.Tipping50 == nil || *res.Tipping50 > lc {
		t.Errorf("exit %d, result %+v", code, res)
	}
	for _, p := range res.Points {
		if p.Load > lc && p.Collapsed != p.Runs {
			t.Errorf("λ/μ = %v above λ_c: %d of %d collapsed", p.Load, p.Collapsed, p.Runs)
		}
	}

	// recovers.hcl: θ = C·τ_out = 200·1, R = 2 + 1 = 3.
	code, stdout, stderr = runSub(t, "simulate", "--tipping", "--json", "--runs", "2", "--loads", "0.5,1.2", "scenarios/recovers.hcl")
	res = decode[request.TippingResult](t, code, stdout, stderr)
	if res.Theta != 200 || res.Attempts != 3 || len(res.Points) != 2 || res.Points[0].Collapsed != 0 || res.Points[1].Collapsed != 2 {
		t.Errorf("from recovers.hcl: %+v", res)
	}

	code, stdout, _ = run(t, "simulate", "--tipping", "--theta", "2", "--attempts", "3", "--runs", "4", "--loads", "0.1,0.2,0.3,0.4,0.6")
	if code != ExitPassed {
		t.Errorf("exit %d", code)
	}
	t.Chdir("internal/cli")
	golden(t, "simulate-tipping.txt", stdout)
}

// Usage errors of simulate exit 2 and say what is wrong.
func TestSimulateUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"runs with the fluid model", []string{"simulate", "--runs", "3", "scenarios/recovers.hcl"}, "deterministic"},
		{"no runs", []string{"simulate", "--model", "request", "--runs", "0", "scenarios/recovers.hcl"}, "--runs 0"},
		{"negative seed", []string{"simulate", "--model", "request", "--seed", "-1", "scenarios/recovers.hcl"}, "--seed -1"},
		{"no scenario", []string{"simulate", "--model", "request"}, "accepts 1 arg"},
		{"tipping without theta", []string{"simulate", "--tipping"}, "--theta"},
		{"tipping with a bad load", []string{"simulate", "--tipping", "--theta", "5", "--loads", "-1"}, "load -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.want)
			}
		})
	}
}

// --backoff retries a fixed number of service times after the timeout, as
// make bench-tipping's clients do: at θ = 2 with ten attempts ten service
// times apart and a horizon of 2,000 service times, two thirds of λ_c is
// near the published 50 % and λ_c collapses every run; the header says so,
// and a negative backoff is a usage error.
func TestSimulateTippingBackoff(t *testing.T) {
	lc, _ := analysis.CollapseCeiling(1, 2)
	loads := fmt.Sprintf("%.4f,%.4f", 2*lc/3, lc)
	code, stdout, stderr := runSub(t, "simulate", "--tipping", "--theta", "2", "--attempts", "10", "--backoff", "10", "--horizon", "2000",
		"--runs", "40", "--loads", loads, "--json")
	res := decode[request.TippingResult](t, code, stdout, stderr)
	if res.Backoff != 10 || len(res.Points) != 2 || res.Points[1].Collapsed != 40 {
		t.Fatalf("result %+v", res)
	}
	if f := res.Points[0].Fraction; f < 0.2 || f > 0.8 {
		t.Errorf("at 2/3 λ_c %.2f collapsed, want near a half", f)
	}
	// Retried at once instead, two thirds of λ_c collapses nearly always.
	code, stdout, stderr = runSub(t, "simulate", "--tipping", "--theta", "2", "--attempts", "10", "--horizon", "2000",
		"--runs", "40", "--loads", loads, "--json")
	if res := decode[request.TippingResult](t, code, stdout, stderr); res.Points[0].Fraction <= 0.8 {
		t.Errorf("retried at once, %.2f collapsed at 2/3 λ_c, want nearly all", res.Points[0].Fraction)
	}
	code, stdout, _ = run(t, "simulate", "--tipping", "--theta", "2", "--backoff", "10", "--runs", "2", "--loads", "0.1")
	if code != ExitPassed || !strings.Contains(stdout, "retry 10 service times after the timeout") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "simulate", "--tipping", "--theta", "2", "--backoff", "-1"); code != ExitUsage {
		t.Errorf("--backoff -1: exit %d, %s", code, stderr)
	}
}
