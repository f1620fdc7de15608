package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
)

// A fault's stop command always runs (docs/safety.md, "Faults are always
// put back"): on the run's normal end, and within a second of an
// interrupt, a brake, max_duration, the abort file, a lost Prometheus or
// a panic of the run's loop. Before its start command runs, the run writes
// a journal in its folder (FaultJournalFile) and an entry in the
// pending-fault registry of the state folder, keyed by the target; the
// stop's success marks the journal restored and removes the entry. A run
// that dies without its stop (SIGKILL, out of memory) has its fault guard
// run it (guard.go). One killed with its guard leaves both: `trigger
// restore OUT_DIR` runs the pending stop (restore.go), and a new run with
// a fault against the same target refuses to start while the entry is
// there (CheckPendingFault).

// FaultJournalFile is the fault's journal in a run's folder.
const FaultJournalFile = "fault-journal.json"

// faultLogFile is where the fault's commands write, in the run's folder.
const faultLogFile = "fault.log"

// FaultJournal is what a run with a fault records before its start
// command and updates when its stop command has run.
type FaultJournal struct {
	Fault  string   `json:"fault"`
	Target string   `json:"target"`
	Stop   []string `json:"stop"`
	Dir    string   `json:"dir"`
	// Env names the environment variables the stop command is given (the
	// fault's env); their values are never written. SecretEnv names
	// those whose values hold a secret: `trigger restore` redacts them.
	Env       []string `json:"env,omitempty"`
	SecretEnv []string `json:"secret_env,omitempty"`
	// TimeoutS bounds the stop command, seconds.
	TimeoutS float64 `json:"timeout_s"`
	// State is "pending" (the start may have run; the stop has not
	// succeeded), "restored" (the stop succeeded) or "failed" (it failed:
	// the fault may still be in place).
	State     string    `json:"state"`
	StartedAt time.Time `json:"started_at"`
	StoppedAt time.Time `json:"stopped_at,omitzero"`
	Error     string    `json:"error,omitempty"`
	// RestoredBy says who ran the stop when it was not the run itself
	// (the fault guard).
	RestoredBy string `json:"restored_by,omitempty"`
}

// The states of a FaultJournal.
const (
	faultPending  = "pending"
	faultRestored = "restored"
	faultFailed   = "failed"
)

// ErrFaultNotRestored: a fault's stop command failed or timed out; the
// fault may still be in place (exit 4).
var ErrFaultNotRestored = errors.New("the fault may still be in place")

// ErrFaultPending: a journal says a fault against the same target is
// still pending (a run was killed before its stop ran).
var ErrFaultPending = errors.New("a fault against this target is still pending")

// DefaultStateDir is where the pending-fault registry lives:
// $TRIGGER_STATE_DIR, else $XDG_STATE_HOME/trigger, else
// ~/.local/state/trigger.
func DefaultStateDir() string {
	if d := os.Getenv("TRIGGER_STATE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "trigger")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "trigger")
	}
	return filepath.Join(os.TempDir(), "trigger-state")
}

// pendingEntry is a registry entry: which journal holds a pending fault
// against a target, and the stop command as the run that wrote it meant
// it: `trigger restore` runs this copy, kept on this machine, not what a
// run's folder says (Restore).
type pendingEntry struct {
	Target  string `json:"target"`
	Fault   string `json:"fault"`
	Journal string `json:"journal"` // absolute path of the journal
	// Stop, Dir and TimeoutS are the journal's (absent from entries
	// written before they were kept here).
	Stop      []string `json:"stop,omitempty"`
	Dir       string   `json:"dir,omitempty"`
	TimeoutS  float64  `json:"timeout_s,omitempty"`
	Env       []string `json:"env,omitempty"`
	SecretEnv []string `json:"secret_env,omitempty"`
}

func registryPath(stateDir, target string) string {
	sum := sha256.Sum256([]byte(target))
	return filepath.Join(stateDir, "pending-faults", hex.EncodeToString(sum[:8])+".json")
}

// CheckPendingFault returns ErrFaultPending, naming the journal, when the
// registry in stateDir holds a fault against target whose journal is not
// restored.
func CheckPendingFault(stateDir, target string) error {
	b, err := readSmall(registryPath(stateDir, target))
	if err != nil {
		return nil
	}
	var e pendingEntry
	if json.Unmarshal(b, &e) != nil {
		return nil
	}
	j, err := readJournal(e.Journal)
	if err == nil && j.State == faultRestored {
		_ = os.Remove(registryPath(stateDir, target))
		return nil
	}
	return fmt.Errorf("%w: fault %q of the run in %s; run `trigger restore %s` (or start with --force)",
		ErrFaultPending, e.Fault, filepath.Dir(e.Journal), filepath.Dir(e.Journal))
}

// registerFault writes the registry entry of the journal at path, which
// holds j.
func registerFault(stateDir, path string, j FaultJournal) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return writeJSONAtomic(registryPath(stateDir, j.Target), pendingEntry{Target: j.Target, Fault: j.Fault, Journal: abs,
		Stop: j.Stop, Dir: j.Dir, TimeoutS: j.TimeoutS, Env: j.Env, SecretEnv: j.SecretEnv})
}

// RecordPendingFault writes j as the journal of the run in outDir and its
// entry in the pending-fault registry of stateDir, as a run does before
// its fault's start command (tools and tests that set up a restore).
func RecordPendingFault(outDir, stateDir string, j FaultJournal) error {
	path := filepath.Join(outDir, FaultJournalFile)
	if err := writeJSONAtomic(path, j); err != nil {
		return err
	}
	return registerFault(stateDir, path, j)
}

func readJournal(path string) (FaultJournal, error) {
	var j FaultJournal
	b, err := readSmall(path)
	if err != nil {
		return j, err
	}
	return j, json.Unmarshal(b, &j)
}

// maxJournalBytes bounds a fault journal and a registry entry: each is a
// few hundred bytes.
const maxJournalBytes = 1 << 20

// readSmall reads a regular file of at most maxJournalBytes.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxJournalBytes+1))
	if err == nil && len(b) > maxJournalBytes {
		err = fmt.Errorf("%s: larger than 1 MiB", path)
	}
	return b, err
}

// writeJSONAtomic writes v to path as indented JSON, its folder created,
// through report.WriteFileAtomic: a kill never leaves half a journal.
func writeJSONAtomic(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Dir(path), filepath.Base(path), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// faultRun is a run's fault: its start, its stop exactly once, and what
// each did. Safe for concurrent use.
type faultRun struct {
	f        convert.Fault
	outDir   string
	stateDir string
	logf     func(string, ...any)
	// red redacts the scenario's secrets from fault.log.
	red redactor
	// guardArgv starts the fault guard (Options.FaultGuard); nil: none.
	// guard is the pipe to it once started.
	guardArgv []string
	guard     *guardConn

	mu       sync.Mutex
	journal  FaultJournal
	started  bool // the start command was launched (the journal written)
	startErr error
	startEnd time.Time

	stopOnce sync.Once
	stopDone chan struct{}
	stopErr  error
	stopAt   time.Time
}

func newFaultRun(f convert.Fault, outDir, stateDir string, logf func(string, ...any)) *faultRun {
	return &faultRun{f: f, outDir: outDir, stateDir: stateDir, logf: logf, stopDone: make(chan struct{})}
}

// command is the fault's start or stop as it runs.
func (fr *faultRun) command(argv []string) command {
	return command{Argv: argv, Dir: fr.f.Dir, Env: fr.f.Env, Timeout: fr.f.Timeout}
}

// start writes the journal and the registry entry, then runs the start
// command within its timeout; it returns when the command has ended.
func (fr *faultRun) start() error {
	fr.mu.Lock()
	fr.journal = FaultJournal{Fault: fr.f.Name, Target: fr.f.Target, Stop: fr.f.Stop, Dir: fr.f.Dir, Env: slices.Sorted(maps.Keys(fr.f.Env)), SecretEnv: fr.red.secretNames(fr.f.Env),
		TimeoutS: fr.f.Timeout.Seconds(), State: faultPending, StartedAt: time.Now().UTC()}
	j := fr.journal
	fr.started = true
	fr.mu.Unlock()
	path := filepath.Join(fr.outDir, FaultJournalFile)
	if err := writeJSONAtomic(path, j); err != nil {
		return fmt.Errorf("fault journal: %w", err)
	}
	if err := registerFault(fr.stateDir, path, j); err != nil {
		fr.logf("fault: the pending-fault registry in %s: %v", fr.stateDir, err)
	}
	if err := fr.startGuard(path); err != nil {
		return err
	}
	fr.logf("fault %q: running %q", fr.f.Name, fr.f.Start)
	c := fr.command(fr.f.Start)
	c.Started = func(pid int) { _ = fr.guardConn().send(guardNews{StartPID: pid}) }
	err := runCommand(c, filepath.Join(fr.outDir, faultLogFile), "start", fr.red)
	_ = fr.guardConn().send(guardNews{StartDone: true})
	fr.mu.Lock()
	fr.startErr, fr.startEnd = err, time.Now()
	fr.mu.Unlock()
	return err
}

// startGuard starts the fault guard, when there is one to start, before
// the start command runs: a run that cannot start it does not take the
// capacity away.
func (fr *faultRun) startGuard(journal string) error {
	if len(fr.guardArgv) == 0 {
		return nil
	}
	abs, err := filepath.Abs(journal)
	if err != nil {
		return err
	}
	stateDir, _ := filepath.Abs(fr.stateDir)
	g, err := startGuard(fr.guardArgv, guardHello{Journal: abs, StateDir: stateDir, Fault: fr.f.Name, Target: fr.f.Target,
		Stop: fr.f.Stop, Dir: fr.f.Dir, Env: fr.f.Env, TimeoutS: fr.f.Timeout.Seconds(), Secrets: fr.red.secrets})
	if err != nil {
		return fmt.Errorf("fault %q: the guard that puts the fault back if the run dies did not start (%v): the start command was not run", fr.f.Name, err)
	}
	fr.mu.Lock()
	fr.guard = g
	fr.mu.Unlock()
	return nil
}

// guardConn is the pipe to the guard; nil when there is none (yet).
func (fr *faultRun) guardConn() *guardConn {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return fr.guard
}

// stop runs the stop command once, whatever called it first (the fault's
// end, the run's end, an interrupt), and records its outcome in the
// journal; later calls wait for the first. Nothing is run if the start
// never was.
func (fr *faultRun) stop(why string) error {
	fr.stopOnce.Do(func() {
		defer close(fr.stopDone)
		fr.mu.Lock()
		started := fr.started
		fr.mu.Unlock()
		if !started {
			return
		}
		fr.logf("fault %q: %s; running %q", fr.f.Name, why, fr.f.Stop)
		err := runCommand(fr.command(fr.f.Stop), filepath.Join(fr.outDir, faultLogFile), "stop ("+why+")", fr.red)
		fr.mu.Lock()
		fr.stopErr, fr.stopAt = err, time.Now()
		j := fr.journal
		j.StoppedAt = fr.stopAt.UTC()
		j.State = faultRestored
		if err != nil {
			j.State, j.Error = faultFailed, err.Error()
		}
		fr.journal = j
		fr.mu.Unlock()
		if werr := writeJSONAtomic(filepath.Join(fr.outDir, FaultJournalFile), j); werr != nil {
			fr.logf("fault journal: %v", werr)
		}
		if err == nil {
			_ = os.Remove(registryPath(fr.stateDir, fr.f.Target))
		}
		// The journal says what became of the fault: the guard has
		// nothing left to do.
		fr.guardConn().close()
	})
	<-fr.stopDone
	return fr.stopErr
}

// restored reports whether the stop ran and succeeded, or there was
// nothing to put back (the start never ran).
func (fr *faultRun) restored() bool {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return !fr.started || (!fr.stopAt.IsZero() && fr.stopErr == nil)
}

// watch runs the stop as soon as ctx is done (an interrupt), not when the
// run's loop gets there, until done is closed.
func (fr *faultRun) watch(ctx context.Context, done <-chan struct{}) {
	select {
	case <-ctx.Done():
		_ = fr.stop("interrupted")
	case <-done:
	}
}

// failure is the message of a stop that failed, with the command to run
// by hand; "" when it succeeded or never ran.
func (fr *faultRun) failure() string {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.stopErr == nil {
		return ""
	}
	return fmt.Sprintf("fault %q: the stop command failed (%v): the fault may still be in place; run it by hand, from %s: %q, or `trigger restore %s`",
		fr.f.Name, fr.stopErr, fr.f.Dir, fr.f.Stop, fr.outDir)
}

func errOrOK(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
