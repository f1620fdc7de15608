package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner/report"
)

// The judging rules on recorded runs: each folder under testdata/runs is
// a live run of the specimen (or of a target and a Prometheus of the
// tests'), kept with TRIGGER_KEEP_RUNS (testdata/runs/README.md). Judge
// replays it through the referee in milliseconds; it must give the
// result.json the run wrote (byte for byte, but for figures the run wrote
// to more than 6 significant digits), the run's error, and what the case
// is about. The live tests these replace ran 15 to 25 s each.
func TestRecordedRunsReplay(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		verdict analysis.Verdict
		passed  bool
		kind    Kind  // 0: the run returned no error
		err     error // its sentinel
		check   func(t *testing.T, res *Result)
	}{
		// A spike too small to trigger: no-trigger (exit 3), and nothing
		// failed, so no failed state: no A and no slope from it.
		{"no-trigger", analysis.VerdictNoTrigger, false, 0, nil, func(t *testing.T, res *Result) {
			o := res.Document.Observation
			if res.Document.RecoveryS != nil {
				t.Errorf("no-trigger reports a recovery of %v s; nothing failed, so nothing recovered", *res.Document.RecoveryS)
			}
			if o.AmplificationFromSlope != nil || o.WaitSlope != nil || res.Document.Amplification.Standing != nil {
				t.Errorf("no-trigger reports A from the slope %v, slope %v, standing %+v", analysis.Value(o.AmplificationFromSlope), analysis.Value(o.WaitSlope), res.Document.Amplification.Standing)
			}
		}},
		// A trapped service watched for less time than its signals need
		// (no wait gauge; the backlog from ingress − served holds the
		// spike for the ingress query's 30 s window, observe is 12 s): the
		// wait signals cannot tell, but the clients saw the service fail
		// to the end: metastable, the gate failed, never "could not tell".
		{"failing-to-the-end", analysis.VerdictMetastable, false, 0, nil, func(t *testing.T, res *Result) {
			o := res.Document.Observation
			if !strings.Contains(o.Observed, "still failing when the observation ended") || !strings.Contains(o.VerdictReason, "settle") {
				t.Errorf("observed %q, reason %q; want what the clients saw, and the wait still settling", o.Observed, o.VerdictReason)
			}
			if f := analysis.Value(o.FirstFailed); !(f > 0) {
				t.Errorf("first attempts failed: %v; the service was failing", f)
			}
		}},
		// Credentials refused after the spike are not a trap: inconclusive,
		// exit 3, naming them; the timeline keeps them apart.
		{"credentials-refused-after-the-spike", analysis.VerdictInconclusive, false, KindInconclusive, ErrCredentialsRefused, func(t *testing.T, res *Result) {
			d := res.Document
			if !strings.Contains(d.Observation.Inconclusive, "401 or 403") || analysis.Value(d.Observation.FirstAuth) == 0 {
				t.Errorf("inconclusive %q, first_auth_total %v", d.Observation.Inconclusive, analysis.Value(d.Observation.FirstAuth))
			}
			var auth, warmupAuth float64
			for _, row := range res.Timeline {
				auth += row.FirstAuth
				if row.Phase == analysis.PhaseWarmup {
					warmupAuth += row.FirstAuth
				}
			}
			if auth == 0 || warmupAuth != 0 {
				t.Errorf("first_auth in the timeline: %g in all, %g in the warmup; want some, none before the spike", auth, warmupAuth)
			}
		}},
		// Prometheus died during the run: no verdict rests on the missing
		// data, and the amplification criterion does not pass on the
		// scenario's belief.
		{"dead-prometheus", analysis.VerdictInconclusive, false, KindInconclusive, ErrMetricsMissing, nil},
		{"recovered", analysis.VerdictRecovered, true, 0, nil, nil},
		{"trapped-early", analysis.VerdictTrapped, false, 0, nil, func(t *testing.T, res *Result) {
			if j := res.Document.Observation.JudgedS; j == nil || *j > 30 {
				t.Errorf("judged %v s after the spike; want early, long before the observation ends", analysis.Value(j))
			}
		}},
		{"fault-recovered", analysis.VerdictRecovered, true, 0, nil, nil},
		// `trigger run` of scenarios/recovers.hcl and trapped.hcl (the
		// binary, the specimen at 2 × 100/s): a wait gauge, the abandoned
		// query, on_trap drop timing the drain.
		{"cli-recovered", analysis.VerdictRecovered, true, 0, nil, nil},
		{"cli-trapped", analysis.VerdictTrapped, false, 0, nil, func(t *testing.T, res *Result) {
			if ot := res.Document.Observation.OnTrap; ot == nil || ot.RecoveryS == nil {
				t.Errorf("on_trap %+v; want the drain timed after the drop", ot)
			}
		}},
		{"fault-trapped", analysis.VerdictTrapped, false, 0, nil, nil},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "runs", tc.dir)
			res, err := Judge(JudgeOptions{Dir: dir})
			if res == nil {
				t.Fatalf("judge: %v", err)
			}
			var re *Error
			switch {
			case tc.kind == 0 && err != nil:
				t.Errorf("err %v; the run returned none", err)
			case tc.kind != 0 && (!errors.As(err, &re) || re.Kind != tc.kind || !errors.Is(err, tc.err)):
				t.Errorf("err %v; want kind %d, %v", err, tc.kind, tc.err)
			}
			if d := res.Document; d.Verdict != tc.verdict || d.Gate.Passed != tc.passed {
				t.Errorf("verdict %s, gate passed %v; want %s, %v", d.Verdict, d.Gate.Passed, tc.verdict, tc.passed)
			}
			sameResult(t, dir, res.Document)
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

// sameResult fails t unless doc encodes as dir's result.json does.
func sameResult(t *testing.T, dir string, doc analysis.Document) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), ResultFile)
	if err := report.WriteResult(again, doc); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(again)
	if bytes.Equal(got, want) {
		return
	}
	// A document is written with its figures rounded to 6 significant
	// digits (analysis.RoundFigure); runs recorded before that hold them
	// to the last bit, so numbers agree within the rounding.
	var w, g any
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil || !sameJSON(w, g) {
		t.Errorf("the replay's result.json differs from the run's:\n%s", lineDiff(string(want), string(got)))
	}
}

// sameJSON reports whether two decoded JSON values are equal, numbers
// within the rounding of analysis.RoundFigure (a relative 5e-6).
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case float64:
		b, ok := b.(float64)
		return ok && math.Abs(a-b) <= 5e-6*math.Max(math.Abs(a), math.Abs(b))
	}
	return a == b
}

// A tighter budget turns a recovered run's gate to failed without
// changing what it measured: the evidence is the run's, the gate is
// today's. The run's own decisions (when it stopped) stand.
func TestJudgeUnderAnotherGate(t *testing.T) {
	dir := filepath.Join("testdata", "runs", "recovered")
	own, err := Judge(JudgeOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rec := analysis.Value(own.Document.RecoveryS)
	gate := own.Document.Judging.Config.Gate
	gate.MaxRecoveryS = rec / 2
	res, err := Judge(JudgeOptions{Dir: dir, Gate: &gate})
	if err != nil {
		t.Fatal(err)
	}
	d, o := res.Document, own.Document
	if d.Gate.Passed || analysis.Value(d.RecoveryS) != rec {
		t.Errorf("under a budget of %.1f s: gate passed %v, recovery %v; want failed, and the run's %.1f s", gate.MaxRecoveryS, d.Gate.Passed, analysis.Value(d.RecoveryS), rec)
	}
	if analysis.Value(d.Amplification.Measured) != analysis.Value(o.Amplification.Measured) || analysis.Value(d.Observation.AmplificationClient) != analysis.Value(o.Observation.AmplificationClient) ||
		d.Observation.VerdictReason != o.Observation.VerdictReason {
		t.Errorf("the figures changed with the gate: A_fail %v → %v, reason %q → %q", analysis.Value(o.Amplification.Measured), analysis.Value(d.Amplification.Measured),
			o.Observation.VerdictReason, d.Observation.VerdictReason)
	}
	// The record stays the run's: judging the judged document again under
	// the run's gate gives the run's.
	if d.Judging.Config.Gate != o.Judging.Config.Gate {
		t.Errorf("the record's gate became %+v", d.Judging.Config.Gate)
	}
}

// A folder without the referee's record, or with a timeline shorter than
// what the referee read, is refused as not replayable (exit 2).
func TestJudgeRefusesWhatItCannotReplay(t *testing.T) {
	old := filepath.Join("report", "testdata", "trapped") // recorded before the judging section
	if _, err := Judge(JudgeOptions{Dir: old}); !errors.Is(err, ErrNotReplayable) {
		t.Errorf("a run without its judging section: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join("testdata", "runs", "recovered")
	b, _ := os.ReadFile(filepath.Join(src, ResultFile))
	os.WriteFile(filepath.Join(dir, ResultFile), b, 0o644)
	tl, _ := os.ReadFile(filepath.Join(src, report.TimelineFile))
	lines := strings.SplitAfter(string(tl), "\n")
	os.WriteFile(filepath.Join(dir, report.TimelineFile), []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
	var re *Error
	if _, err := Judge(JudgeOptions{Dir: dir}); !errors.Is(err, ErrNotReplayable) || !errors.As(err, &re) || re.Kind != KindUsage {
		t.Errorf("a timeline cut in half: %v", err)
	}
	// A record edited to a rule no run has (every second "recovered").
	os.WriteFile(filepath.Join(dir, report.TimelineFile), tl, 0o644)
	os.WriteFile(filepath.Join(dir, ResultFile), []byte(strings.Replace(string(b), `"success_ratio": 0.99`, `"success_ratio": 0`, 1)), 0o644)
	if _, err := Judge(JudgeOptions{Dir: dir}); !errors.Is(err, ErrNotReplayable) || !strings.Contains(err.Error(), "success_ratio") {
		t.Errorf("a success ratio of 0: %v", err)
	}
}
