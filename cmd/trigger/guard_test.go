package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"net/http"
	"net/http/httptest"
)

// guardPID is the process id of the fault guard watching journal (its
// command line ends with "fault-guard" and the journal's path), or 0.
func guardPID(t *testing.T, journal string) int {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to find the fault guard in")
	}
	want := []byte("fault-guard\x00" + journal + "\x00")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline")); bytes.HasSuffix(b, want) {
			return pid
		}
	}
	return 0
}

// killGuard kills the fault guard watching journal with SIGKILL.
func killGuard(t *testing.T, journal string) {
	t.Helper()
	pid := guardPID(t, journal)
	if pid == 0 {
		t.Fatalf("no fault guard watches %s", journal)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); guardPID(t, journal) != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the guard %d outlived SIGKILL", pid)
		}
	}
}

// guardScenario is faultScenario with a sensitive token handed to both
// commands through env: the stop writes what it got to stop-token and
// echoes it (to fault.log).
const guardScenario = `variable "token" {
  default   = "unused"
  sensitive = true
}
client { timeout = "500ms" }
service { capacity = 1000 }
load {
  baseline = 20
  warmup   = "3s"
  observe  = "10s"
}
fault "f" {
  start    = ["sh", "-c", "echo start $(date +%s%N) >> faults.log; echo \"token $TOKEN\""]
  stop     = ["sh", "-c", "echo stop $(date +%s%N) >> faults.log; printf %s \"$TOKEN\" > stop-token; echo \"token $TOKEN\""]
  env      = { TOKEN = var.token }
  duration = "30s"
  capacity = 0.5
  timeout  = "5s"
}
`

// A run killed with SIGKILL while its fault holds (as an out-of-memory
// kill or a panic would end it): the fault guard it started, in a session
// of its own, runs the stop once, with the token it was handed through
// env, and marks the journal restored; the target is free for the next
// run. The token is in none of fault.log, the journal or the registry.
func TestGuardPutsTheFaultBackAfterSIGKILL(t *testing.T) {
	const secret = "tok-guard-8c1f"
	bin := buildTrigger(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer target.Close()
	dir, state := t.TempDir(), t.TempDir()
	scenario := writeScenario(t, dir, "guard", target.URL, guardScenario)
	out := filepath.Join(dir, "out")
	env := append(os.Environ(), "TRIGGER_STATE_DIR="+state)
	cmd, stderr := startFaultRun(t, bin, dir, scenario, out, env, "--var", "token="+secret)
	journal := filepath.Join(out, "fault-journal.json")
	if guardPID(t, journal) == 0 {
		t.Fatalf("no fault guard beside the run:\n%s", stderr)
	}
	// The fault holds once its start has ended and its output is logged:
	// the guard is there from the start on, a few milliseconds earlier.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if log, _ := os.ReadFile(filepath.Join(out, "fault.log")); strings.Contains(string(log), "ended") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fault's start did not end within 10 s:\n%s", stderr)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if verbs, _ := faultLog(t, dir); len(verbs) >= 2 && guardPID(t, journal) == 0 {
			break
		}
		if time.Now().After(deadline) {
			verbs, _ := faultLog(t, dir)
			t.Fatalf("faults.log %v 20 s after SIGKILL; want the guard's stop", verbs)
		}
	}
	if verbs, _ := faultLog(t, dir); len(verbs) != 2 || verbs[1] != "stop" {
		t.Errorf("faults.log %v; want the start and one stop", verbs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stop-token")); string(b) != secret {
		t.Errorf("the guard's stop got TOKEN=%q; want the secret", b)
	}
	j, _ := os.ReadFile(journal)
	if !strings.Contains(string(j), `"restored"`) || !strings.Contains(string(j), "fault guard") {
		t.Errorf("journal:\n%s\nwant restored by the fault guard", j)
	}
	log, _ := os.ReadFile(filepath.Join(out, "fault.log"))
	if strings.Count(string(log), "token (sensitive)") < 2 {
		t.Errorf("fault.log:\n%s\nwant the output of the start and of the guard's stop, the token redacted", log)
	}
	var registry []byte
	entries, _ := os.ReadDir(filepath.Join(state, "pending-faults"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(state, "pending-faults", e.Name()))
		registry = append(registry, b...)
	}
	if len(entries) != 0 {
		t.Errorf("the registry still holds %d entries: the target is not free", len(entries))
	}
	for where, text := range map[string][]byte{"fault.log": log, "the journal": j, "the registry": registry} {
		if bytes.Contains(text, []byte(secret)) {
			t.Errorf("%s holds the token", where)
		}
	}
}
