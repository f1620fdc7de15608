package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// faultScenario is a run with a fault whose start and stop append a line
// with the time (ns) to faults.log in the scenario's folder.
const faultScenario = `client { timeout = "500ms" }
service { capacity = 1000 }
load {
  baseline = 20
  warmup   = "3s"
  observe  = "10s"
}
fault "f" {
  start    = ["sh", "-c", "echo start $(date +%s%N) >> faults.log"]
  stop     = ["sh", "-c", "echo stop $(date +%s%N) >> faults.log"]
  duration = "30s"
  capacity = 0.5
  timeout  = "5s"
}
`

// faultLog reads faults.log: each line's verb and time.
func faultLog(t *testing.T, dir string) (verbs []string, at []time.Time) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "faults.log"))
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		verbs, at = append(verbs, f[0]), append(at, time.Unix(0, ns))
	}
	return verbs, at
}

// startFaultRun starts `trigger run` on the fault scenario in dir and
// waits until the fault's start has run.
func startFaultRun(t *testing.T, bin, dir, scenario, out string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	args = append(append([]string{"run", "--yes", "--allow-commands", "--out", out}, args...), scenario)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if verbs, _ := faultLog(t, dir); len(verbs) >= 1 {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the fault did not start within 20 s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGHUP, SIGTERM and Ctrl-C while a fault holds: its stop runs within a
// second of the signal (by the command's own clock), the run exits 130,
// and result.json says the fault was put back.
func TestFaultStopRunsOnEverySignal(t *testing.T) {
	bin := buildTrigger(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer target.Close()
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			scenario := writeScenario(t, dir, "fault", target.URL, faultScenario)
			out := filepath.Join(dir, "out")
			env := append(os.Environ(), "TRIGGER_STATE_DIR="+t.TempDir())
			cmd, stderr := startFaultRun(t, bin, dir, scenario, out, env)
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20 s after %s:\n%s", sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("after %s: %v, want exit 130\n%s", sig, err, stderr.String())
			}
			verbs, at := faultLog(t, dir)
			if len(verbs) != 2 || verbs[1] != "stop" {
				t.Fatalf("faults.log %v; want the start and the stop once", verbs)
			}
			if d := at[1].Sub(sent); d > time.Second {
				t.Errorf("the stop ran %s after %s; want within 1 s", d, sig)
			}
			b, _ := os.ReadFile(filepath.Join(out, "result.json"))
			if !bytes.Contains(b, []byte(`"restored": true`)) && !bytes.Contains(b, []byte(`"restored":true`)) {
				t.Errorf("result.json does not say the fault was restored")
			}
		})
	}
}

// A run killed with SIGKILL while its fault holds, its guard killed too,
// leaves the fault in place and its journal: a new run with a fault against the same target
// is refused (exit 2) naming it, `trigger restore` runs the stop once, a
// second restore does nothing, and then the target is free.
func TestSIGKILLThenRestore(t *testing.T) {
	bin := buildTrigger(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer target.Close()
	dir := t.TempDir()
	scenario := writeScenario(t, dir, "fault", target.URL, faultScenario)
	out := filepath.Join(dir, "out")
	env := append(os.Environ(), "TRIGGER_STATE_DIR="+t.TempDir())
	cmd, _ := startFaultRun(t, bin, dir, scenario, out, env)
	// The machine loses both: the guard first (or it would put the fault
	// back: TestGuardPutsTheFaultBackAfterSIGKILL), then the run.
	killGuard(t, filepath.Join(out, "fault-journal.json"))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if verbs, _ := faultLog(t, dir); len(verbs) != 1 {
		t.Fatalf("faults.log %v after SIGKILL; want the start alone", verbs)
	}

	again := exec.Command(bin, "run", "--yes", "--allow-commands", "--out", filepath.Join(dir, "out2"), scenario)
	again.Env = env
	b, err := again.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), "still pending") || !strings.Contains(string(b), out) {
		t.Fatalf("a second run: %v\n%s\nwant exit 2 naming the pending fault in %s", err, b, out)
	}
	for i, want := range []string{"restored", "nothing to restore"} {
		r := exec.Command(bin, "restore", "--yes", out)
		r.Env = env
		b, err := r.CombinedOutput()
		if err != nil || !strings.Contains(string(b), want) {
			t.Fatalf("restore %d: %v\n%s\nwant %q", i+1, err, b, want)
		}
	}
	if verbs, _ := faultLog(t, dir); len(verbs) != 2 || verbs[1] != "stop" {
		t.Errorf("faults.log %v; want the start and one stop", verbs)
	}
	// The target is free: a run with --force was not needed. (A plan
	// reads no registry; the run's refusal is what is checked.)
	free := exec.Command(bin, "run", "--yes", "--allow-commands", "--abort-file", filepath.Join(dir, "abort"), "--out", filepath.Join(dir, "out3"), scenario)
	free.Env = env
	if err := os.WriteFile(filepath.Join(dir, "abort"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = free.CombinedOutput()
	if strings.Contains(string(b), "still pending") {
		t.Errorf("after restore the target is still refused:\n%s", b)
	}
}
