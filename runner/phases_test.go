package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/referee"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/vocab"
)

// unitRun is a run with only what running an on_trap command reads.
func unitRun(timeout time.Duration) *run {
	spec := convert.Run{Observe: 10 * time.Minute, Recovery: convert.Recovery{SuccessRatio: 0.99, Hold: 10 * time.Second}}
	inputs := analysis.PlanInputs{Scenario: analysis.ScenarioSection{DemandPerS: 50, CapacityPerS: 100, TimeoutS: timeout.Seconds(), ObserveS: spec.Observe.Seconds()}}
	plan := analysis.Document{Scenario: analysis.ScenarioSection{TimeoutS: timeout.Seconds(), PatienceS: timeout.Seconds(), PatienceFrom: "the client timeout τ_out"}}
	test := &convert.Test{Run: spec, Plan: inputs}
	return &run{opts: Options{Test: test}, test: test, spec: spec, inputs: inputs, plan: plan, phases: newPhaseMetric(),
		ref: referee.New(plan, analysis.RefereeConfig{SuccessRatio: 0.99, HoldS: 10})}
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
