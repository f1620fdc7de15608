package runner

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/vocab"
)

// unitRun is a run with only what the phase logic reads, for tests that
// drive it with explicit timelines.
func unitRun(timeout time.Duration) *run {
	spec := convert.Run{Observe: 10 * time.Minute, Recovery: convert.Recovery{SuccessRatio: 0.99, Hold: 10 * time.Second}}
	inputs := analysis.PlanInputs{Scenario: analysis.ScenarioSection{DemandPerS: 50, CapacityPerS: 100, TimeoutS: timeout.Seconds(), ObserveS: spec.Observe.Seconds()}}
	plan := analysis.Document{Scenario: analysis.ScenarioSection{TimeoutS: timeout.Seconds(), PatienceS: timeout.Seconds(), PatienceFrom: "the client timeout τ_out"}}
	test := &convert.Test{Run: spec, Plan: inputs}
	return &run{opts: Options{Test: test}, test: test, spec: spec, inputs: inputs, plan: plan, spikeStart: 0, spikeEnd: 40, recoveryS: math.NaN(), judgedAt: math.NaN(),
		waits: newWaitSources(map[analysis.WaitSource]float64{}, map[analysis.WaitSource]float64{}, inputs.Scenario.CapacityPerS)}
}

// With a long client timeout, the first timeouts of a trigger complete only
// τ_out after the attempts that met the long wait: the seconds right after
// the spike can look healthy. They must not be taken for a recovery (or
// for no trigger at all).
func TestObserveWaitsOneTimeoutBeforeJudgingRecovery(t *testing.T) {
	r := unitRun(30 * time.Second)
	// t0 = 30 s into the 40 s spike: attempts sent from 30 s on time out,
	// and those timeouts complete from 60 s on; until then every first
	// attempt that completes succeeded.
	for ts := 0.0; ts < 60; ts++ {
		r.rows = append(r.rows, analysis.TimelineRow{TS: ts, Sent: 50, FirstOK: 50, FirstDone: 50, OK: 50})
	}
	if r.observe(59) {
		t.Fatalf("judged %s (%s) at 59 s, before the spike's timeouts could complete", r.verdict, r.reason)
	}
	for ts := 60.0; ts < 80; ts++ {
		r.rows = append(r.rows, analysis.TimelineRow{TS: ts, Sent: 50, FirstDone: 50, Timeouts: 150, Retries: 100})
	}
	if r.observe(79) && r.verdict != analysis.VerdictTrapped {
		t.Errorf("judged %s (%s) while every attempt times out", r.verdict, r.reason)
	}
}

// Failures at warmup that are all refused connections mean the target is
// down: a harness error, not an overloaded baseline.
func TestBaselineFailing(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		ok, failures, refuse float64
		failing, refused     bool
	}{
		{"healthy", 50, 0, 0, false, false},
		// One stray error in 500 is within the 0.99 threshold.
		{"a stray error", 499.0 / 10, 0.1, 0, false, false},
		{"overloaded", 30, 20, 0, true, false},
		{"target down", 0, 50, 50, true, true},
	} {
		r := unitRun(time.Second)
		for ts := 0.0; ts < 10; ts++ {
			r.rows = append(r.rows, analysis.TimelineRow{TS: ts, OK: tc.ok, Errors: tc.failures, Connect: tc.refuse})
		}
		why, refused := r.baselineFailing()
		if (why != "") != tc.failing || refused != tc.refused {
			t.Errorf("%s: failing %q refused %v; want failing %v refused %v", tc.name, why, refused, tc.failing, tc.refused)
		}
	}
}

// A command run by on_trap is stopped with everything it started, and
// stopping it does not wait for a grandchild that holds its output open:
// once stopOnTrap has returned, the shell and its children are gone.
func TestOnTrapCommandStopsItsProcessGroup(t *testing.T) {
	// The shell writes the pid of its background child, then its own (which
	// the foreground sleep takes over by exec); both hold the output open.
	pidFile := filepath.Join(t.TempDir(), "pids")
	r := unitRun(time.Second)
	r.spec.OnTrap = &convert.OnTrap{Action: vocab.TrapCommand, Observe: time.Minute,
		Command: []string{"sh", "-c", `sleep 60 & echo $! >> "$1"; echo $$ >> "$1"; exec sleep 60`, "sh", pidFile}}
	r.startOnTrap(0)
	t.Cleanup(r.onTrap.cancel) // should the test stop early: kills the group
	var pids []int
	testwait.For(t, 10*time.Second, 10*time.Millisecond, "the shell to start its children and write their pids", func() bool {
		b, _ := os.ReadFile(pidFile)
		if !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				return false
			}
			pids = append(pids, pid)
		}
		return len(pids) == 2
	})
	t.Cleanup(func() { // whatever the test found, leave no sleep behind
		for _, pid := range pids {
			if !processGone(pid) {
				killProcess(pid)
			}
		}
	})
	done := make(chan struct{})
	go func() {
		r.stopOnTrap()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stopping the on_trap command did not return within 10 s")
	}
	if r.onTrap.err != "" {
		t.Errorf("a command the run stopped itself is reported as failed: %s", r.onTrap.err)
	}
	for _, pid := range pids {
		testwait.For(t, 10*time.Second, 10*time.Millisecond, fmt.Sprintf("process %d of the on_trap command (pids %v) to be gone", pid, pids),
			func() bool { return processGone(pid) })
	}
	r.stopOnTrap() // a second stop is harmless
}

// The warmup lasts at least until the first attempts' outcomes can be
// known: a warmup no longer than the client timeout would have seen no
// failure from a target that never answers.
func TestWarmupOutlastsTheTimeout(t *testing.T) {
	r := unitRun(30 * time.Second)
	r.spec.Warmup = 20 * time.Second
	if got := r.warmupEnd(); got != 32 {
		t.Errorf("warmup ends at %v s, want 32 (1 s + a 30 s timeout + 1 s)", got)
	}
	r.spec.Warmup = time.Minute
	if got := r.warmupEnd(); got != 60 {
		t.Errorf("warmup ends at %v s, want the scenario's 60", got)
	}
	// Sent, and nothing completed: no healthy baseline to test against.
	r.rows = nil
	for ts := 0.0; ts < 32; ts++ {
		r.rows = append(r.rows, analysis.TimelineRow{TS: ts, Sent: 10})
	}
	if why, _ := r.baselineFailing(); !strings.Contains(why, "none of the 320 first attempts") {
		t.Errorf("nothing completed: %q", why)
	}
}

// An on_trap command gets its env on top of the run's environment (the
// way a secret reaches it: never its argv).
func TestOnTrapCommandGetsItsEnv(t *testing.T) {
	got := filepath.Join(t.TempDir(), "got")
	r := unitRun(time.Second)
	r.spec.OnTrap = &convert.OnTrap{Action: vocab.TrapCommand, Observe: time.Minute, Env: map[string]string{"TOKEN": "tok-ontrap-3"},
		Command: []string{"sh", "-c", `printf %s "$TOKEN" > "$1"`, "sh", got}}
	r.startOnTrap(0)
	select {
	case <-r.onTrap.done:
	case <-time.After(10 * time.Second):
		r.onTrap.cancel()
		t.Fatal("the on_trap command did not end within 10 s")
	}
	r.stopOnTrap()
	if b, _ := os.ReadFile(got); string(b) != "tok-ontrap-3" || r.onTrap.err != "" {
		t.Errorf("the command got TOKEN=%q (err %q)", b, r.onTrap.err)
	}
}
