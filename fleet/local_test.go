package fleet_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/internal/testwait"
)

// buildTrigger builds the trigger binary for the local engine's tests.
func buildTrigger(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the trigger binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "trigger")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/trigger").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runLocal runs two agent processes of bin against a recording target,
// and returns once the run has merged two seconds; done delivers Run's
// result. The coordinator is closed at the test's end.
func runLocal(t *testing.T, bin string) (*fleet.Coordinator, *fleet.LocalEngine, <-chan error) {
	t.Helper()
	tg := staging.StartRecordingTarget()
	t.Cleanup(tg.Stop)
	eng := &fleet.LocalEngine{Binary: bin}
	c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: 2, Engine: eng, File: "fleet.hcl", Source: scenario(tg.URL, 40, "30s"),
		Seed: 1, MaxInFlight: 100, MaxDuration: 20 * time.Second, JoinTimeout: 15 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := c.Launch(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "2 merged seconds", func() bool { return len(c.TimelineSince(0)) >= 2 })
	return c, eng, done
}

// The local engine runs real agent processes of the binary: they join,
// start within 10 ms of each other, send to the target, and one killed is
// named with its exit status; the engine's Stop leaves no process.
func TestLocalEngineAgents(t *testing.T) {
	bin := buildTrigger(t)
	c, eng, done := runLocal(t, bin)
	if err := eng.Kill(1); err != nil {
		t.Fatal(err)
	}
	err := testwait.Receive(t, done, 10*time.Second, "Run to return after an agent process was killed")
	if !errors.Is(err, fleet.ErrAgentLost) || !strings.Contains(err.Error(), "agent-1") || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Run = %v, want ErrAgentLost naming agent-1 and its exit", err)
	}
	info := c.Info()
	t.Logf("%v; start skew %.3f ms; per agent %+v", err, *info.StartSkewMS, info.PerAgent)
	if *info.StartSkewMS >= 10 || info.PerAgent[0].Sent < 40 {
		t.Errorf("skew %.1f ms, agent-0 sent %d", *info.StartSkewMS, info.PerAgent[0].Sent)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := eng.Diagnose(context.Background(), 0); !strings.Contains(d, "exited") {
		t.Errorf("agent-0 after Stop: %q, want exited", d)
	}
}

// An agent stopped by a signal of its own (SIGTERM: a Kubernetes
// eviction) before the run stops it is lost, by name, though it sends a
// final report and exits 0: its share is missing from then on, and the
// attempts it cut short are no failures of the service.
func TestLocalEngineAgentStoppedBySIGTERMIsLost(t *testing.T) {
	bin := buildTrigger(t)
	_, eng, done := runLocal(t, bin)
	if err := eng.Signal(1, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := testwait.Receive(t, done, 10*time.Second, "Run to return after an agent got SIGTERM")
	if !errors.Is(err, fleet.ErrAgentLost) || !strings.Contains(err.Error(), "agent-1") || !strings.Contains(err.Error(), "signal") {
		t.Fatalf("Run = %v, want ErrAgentLost naming agent-1 and the signal", err)
	}
}
