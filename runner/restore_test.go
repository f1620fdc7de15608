package runner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pendingJournal is a pending journal whose stop runs the fault helper
// (which appends "ok" to log) from dir.
func pendingJournal(t *testing.T, target, dir, log string) FaultJournal {
	t.Helper()
	exe, _ := os.Executable()
	return FaultJournal{Fault: "f", Target: target, Stop: []string{exe, "ok", log}, Dir: dir, TimeoutS: 5,
		State: faultPending, StartedAt: time.Now().UTC()}
}

// restore runs only a journal the local registry names, and the command
// registered with it: a folder brought from elsewhere with a pending
// journal (nothing registered), a registered journal whose command was
// changed since, and one whose folder is "/" are refused, and nothing is
// run; a journal the registry names runs from its folder.
func TestRestoreRunsOnlyRegisteredJournals(t *testing.T) {
	t.Setenv(faultHelperEnv, "1")
	const target = "http://127.0.0.1:9"
	log := filepath.Join(t.TempDir(), "helper.log")
	write := func(t *testing.T, dir string, j FaultJournal) {
		t.Helper()
		b, _ := json.Marshal(j)
		if err := os.WriteFile(filepath.Join(dir, FaultJournalFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("not registered", func(t *testing.T) {
		out, state := t.TempDir(), t.TempDir()
		write(t, out, pendingJournal(t, target, t.TempDir(), log))
		ran, err := Restore(out, state, t.Logf)
		if ran || !errors.Is(err, ErrNotRegistered) {
			t.Fatalf("Restore = %v, %v; want refused (not registered)", ran, err)
		}
		// Another run's entry for the same target does not vouch for it.
		if err := RecordPendingFault(t.TempDir(), state, pendingJournal(t, target, t.TempDir(), log)); err != nil {
			t.Fatal(err)
		}
		if ran, err := Restore(out, state, t.Logf); ran || !errors.Is(err, ErrNotRegistered) {
			t.Fatalf("with another journal registered: Restore = %v, %v; want refused", ran, err)
		}
	})
	t.Run("changed since", func(t *testing.T) {
		out, state := t.TempDir(), t.TempDir()
		j := pendingJournal(t, target, t.TempDir(), log)
		if err := RecordPendingFault(out, state, j); err != nil {
			t.Fatal(err)
		}
		j.Stop = []string{"sh", "-c", "echo changed >> " + log}
		write(t, out, j)
		if ran, err := Restore(out, state, t.Logf); ran || !errors.Is(err, ErrNotRegistered) {
			t.Fatalf("Restore = %v, %v; want refused (changed)", ran, err)
		}
	})
	t.Run("from /", func(t *testing.T) {
		out, state := t.TempDir(), t.TempDir()
		if err := RecordPendingFault(out, state, pendingJournal(t, target, "/", log)); err != nil {
			t.Fatal(err)
		}
		if ran, err := Restore(out, state, t.Logf); ran || err == nil {
			t.Fatalf("Restore = %v, %v; want refused (folder /)", ran, err)
		}
	})
	if l := readHelperLog(t, log); len(l) != 0 {
		t.Fatalf("helper log %+v; want nothing run", l)
	}
	t.Run("registered", func(t *testing.T) {
		out, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
		if err := RecordPendingFault(out, state, pendingJournal(t, target, dir, log)); err != nil {
			t.Fatal(err)
		}
		p, err := FindPendingStop(out, state)
		if err != nil || p.Done || p.Dir != dir {
			t.Fatalf("FindPendingStop = %+v, %v; want the stop from %s", p, err, dir)
		}
		if err := p.Run(os.LookupEnv, t.Logf); err != nil {
			t.Fatal(err)
		}
		if l := readHelperLog(t, log); len(l) != 1 || l[0].verb != "ok" {
			t.Errorf("helper log %+v; want the stop once", l)
		}
		if err := CheckPendingFault(state, target); err != nil {
			t.Errorf("after restore: %v", err)
		}
	})
}

// restore gives the stop command the environment variables the fault's
// env named, from its own environment (their values were written
// nowhere), and redacts the secret ones from fault.log; one it lacks
// runs nothing.
func TestRestoreGivesTheStopItsEnvironment(t *testing.T) {
	const secret = "tok-restore-42"
	out, state, dir := t.TempDir(), t.TempDir(), t.TempDir()
	j := FaultJournal{Fault: "f", Target: "http://127.0.0.1:9", Dir: dir, TimeoutS: 5, State: faultPending, StartedAt: time.Now().UTC(),
		Stop: []string{"sh", "-c", `printf %s "$TOKEN" > got; echo "token $TOKEN"`}, Env: []string{"TOKEN"}, SecretEnv: []string{"TOKEN"}}
	if err := RecordPendingFault(out, state, j); err != nil {
		t.Fatal(err)
	}
	p, err := FindPendingStop(out, state)
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	if err := p.Run(none, t.Logf); !errors.Is(err, ErrMissingEnv) {
		t.Fatalf("Run without TOKEN = %v; want ErrMissingEnv", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "got")); err == nil {
		t.Fatal("the stop ran without its environment")
	}
	lookup := func(k string) (string, bool) { return secret, k == "TOKEN" }
	if err := p.Run(lookup, t.Logf); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "got")); string(b) != secret {
		t.Errorf("the stop got TOKEN=%q", b)
	}
	log, _ := os.ReadFile(filepath.Join(out, faultLogFile))
	if strings.Contains(string(log), secret) || !strings.Contains(string(log), "token (sensitive)") {
		t.Errorf("fault.log:\n%s\nwant the output with TOKEN's value redacted", log)
	}
}
