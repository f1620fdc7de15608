package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/runner"
)

// restoreCmd runs `trigger restore ARGS` with stdin a regular file (no
// terminal) and the registry in state.
func restoreCmd(t *testing.T, state string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("TRIGGER_STATE_DIR", state)
	in, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb bytes.Buffer
	cmd := newRestoreCommand(in, &out, &errb)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err = cmd.Execute()
	var ee *ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.Code
		errb.WriteString(err.Error())
	default:
		t.Fatalf("restore: %v", err)
	}
	return code, out.String(), errb.String()
}

// restore shows the stop command and its folder and runs it only when
// confirmed: without a terminal and without --yes it refuses (exit 2) and
// runs nothing; with --yes it runs it once, from the scenario's folder; a
// journal the local registry does not name is refused even with --yes.
func TestRestoreAsksAndRunsOnlyRegisteredJournals(t *testing.T) {
	state, out, dir := t.TempDir(), t.TempDir(), t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	j := runner.FaultJournal{Fault: "f", Target: "http://127.0.0.1:9", Dir: dir, TimeoutS: 5, State: "pending", StartedAt: time.Now().UTC(),
		Stop: []string{"sh", "-c", "pwd >> " + ran}}
	if err := runner.RecordPendingFault(out, state, j); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := restoreCmd(t, state, out)
	if code != ExitUsage || !strings.Contains(stderr, "--yes") || !strings.Contains(stderr, "pwd >> ") || !strings.Contains(stderr, dir) {
		t.Fatalf("restore without --yes: exit %d\n%s\nwant exit 2, the command and its folder shown", code, stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("restore without --yes ran the command")
	}

	// A folder from elsewhere: the same journal, copied; nothing registered
	// for it.
	other := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(out, runner.FaultJournalFile))
	if err := os.WriteFile(filepath.Join(other, runner.FaultJournalFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := restoreCmd(t, state, "--yes", other); code != ExitUsage || !strings.Contains(stderr, "registry") {
		t.Fatalf("restore --yes of an unregistered journal: exit %d\n%s\nwant exit 2", code, stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("restore of an unregistered journal ran the command")
	}

	code, stdout, stderr := restoreCmd(t, state, "--yes", out)
	if code != 0 || !strings.Contains(stdout, "restored") {
		t.Fatalf("restore --yes: exit %d\n%s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(ran)
	want, _ := filepath.EvalSymlinks(dir)
	if strings.TrimSpace(string(got)) != want && strings.TrimSpace(string(got)) != dir {
		t.Errorf("the stop ran from %q; want once, from %s", got, dir)
	}
}

// restore's prompt shows the command as a shell would read it, every
// control character escaped: a "\r" and an erase-line sequence cannot
// make it show a harmless command over the one that runs.
func TestRestorePromptEscapesTheCommand(t *testing.T) {
	got := restorePrompt(&runner.PendingStop{Fault: "f", Target: "http://127.0.0.1:9", Dir: "/srv/scenario\x1b[2K",
		Stop: []string{"sh", "-c", "rm -rf ~/work\r\x1b[2Kecho harmless"}, Env: []string{"TOKEN"}, Timeout: time.Second})
	for _, want := range []string{`sh -c $'rm -rf ~/work\r\x1b[2Kecho harmless'`, `/srv/scenario\x1b[2K`, "TOKEN"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("prompt holds a control character:\n%q", got)
	}
}
