package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/convert"
)

// guardHelperEnv makes the test binary run as the fault guard.
const guardHelperEnv = "TRIGGER_GUARD_HELPER"

// guardedFault is a fault whose commands append their verb to log, from
// dir, with a fault guard (the test binary) beside it.
func guardedFault(t *testing.T, start string) (fr *faultRun, out, state, log string) {
	t.Helper()
	t.Setenv(guardHelperEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	log = filepath.Join(dir, "commands.log")
	f := convert.Fault{Name: "f", Target: "http://127.0.0.1:9", Dir: dir, Duration: time.Second, Timeout: 5 * time.Second,
		Start: []string{"sh", "-c", start}, Stop: []string{"sh", "-c", "echo stop >> commands.log"}}
	fr = newFaultRun(f, out, state, t.Logf)
	fr.guardArgv = []string{exe}
	return fr, out, state, log
}

// waitExited waits, at most 20 s, for the guard to end.
func waitExited(t *testing.T, fr *faultRun) {
	t.Helper()
	select {
	case <-fr.guardConn().exited:
	case <-time.After(20 * time.Second):
		t.Fatal("the guard did not end within 20 s")
	}
}

func readLines(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(string(b))
}

// A run that dies (its end of the pipe closed, as the kernel closes it on
// SIGKILL or an out-of-memory kill) with its fault pending: the guard runs
// the stop once, marks the journal restored by the guard and frees the
// target. A start command still running then is killed first, so it
// cannot take the capacity away after the stop. A run that put its fault
// back leaves the guard nothing to do.
func TestGuardPutsTheFaultBackWhenTheRunDies(t *testing.T) {
	t.Run("after the start", func(t *testing.T) {
		fr, out, state, log := guardedFault(t, "echo start >> commands.log")
		if err := fr.start(); err != nil {
			t.Fatal(err)
		}
		fr.guardConn().close() // the run dies here
		waitExited(t, fr)
		if got := readLines(log); strings.Join(got, " ") != "start stop" {
			t.Errorf("commands %v; want the start, then the guard's stop", got)
		}
		j, err := readJournal(filepath.Join(out, FaultJournalFile))
		if err != nil || j.State != faultRestored || j.RestoredBy != restoredByGuard {
			t.Errorf("journal %+v (%v); want restored by the guard", j, err)
		}
		if err := CheckPendingFault(state, fr.f.Target); err != nil {
			t.Errorf("the target is still refused: %v", err)
		}
	})
	t.Run("during the start", func(t *testing.T) {
		fr, _, _, log := guardedFault(t, "echo start >> commands.log; sleep 30; echo late >> commands.log")
		started := make(chan error, 1)
		go func() { started <- fr.start() }()
		for deadline := time.Now().Add(20 * time.Second); len(readLines(log)) == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the start did not run within 20 s")
			}
		}
		fr.guardConn().close() // the run dies while its start runs
		waitExited(t, fr)
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("the start command was not killed")
		}
		if got := readLines(log); strings.Join(got, " ") != "start stop" {
			t.Errorf("commands %v; want the start killed, then the guard's stop", got)
		}
	})
	t.Run("put back by the run", func(t *testing.T) {
		fr, out, _, log := guardedFault(t, "echo start >> commands.log")
		if err := fr.start(); err != nil {
			t.Fatal(err)
		}
		if err := fr.stop("its duration is over"); err != nil {
			t.Fatal(err)
		}
		waitExited(t, fr)
		if got := readLines(log); strings.Join(got, " ") != "start stop" {
			t.Errorf("commands %v; want one stop, the run's", got)
		}
		if j, _ := readJournal(filepath.Join(out, FaultJournalFile)); j.RestoredBy != "" {
			t.Errorf("journal says restored by %q; want the run", j.RestoredBy)
		}
	})
}
