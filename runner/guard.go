package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// The fault guard puts a fault back when the run that started it dies
// without running its stop: a panic that escapes, an out-of-memory kill,
// SIGKILL (docs/safety.md, "Running a scenario you did not write"). Before
// the start command runs, the run starts the guard (Options.FaultGuard:
// `trigger fault-guard JOURNAL`) in a session of its own, so that the
// signals meant for the run (a terminal's Ctrl-C, a closed SSH session)
// do not reach it, and keeps the write end of a pipe to its stdin. It
// sends the stop command as it will run (the env's values included,
// which are written nowhere) and then when the start command runs and
// ends. The kernel closes the pipe when the run's process ends, however
// it ends. The guard then reads the journal: when it still says pending,
// it kills a start command still running (its process group) and runs
// the stop, within the fault's timeout, and marks the journal restored
// (or failed) and removes the registry entry, as `trigger restore` would.
// A run that put its fault back closes the pipe after the journal says
// so: the guard exits with nothing to do.

// guardHello is the run's first line to its guard: the fault and its stop
// command.
type guardHello struct {
	Journal  string            `json:"journal"` // absolute path
	StateDir string            `json:"state_dir"`
	Fault    string            `json:"fault"`
	Target   string            `json:"target"`
	Stop     []string          `json:"stop"`
	Dir      string            `json:"dir"`
	Env      map[string]string `json:"env,omitempty"`
	TimeoutS float64           `json:"timeout_s"`
	// Secrets are the texts to redact from fault.log.
	Secrets []string `json:"secrets,omitempty"`
}

// guardNews is a later line: the start command's process (group) id once
// it runs, and StartDone once it has ended.
type guardNews struct {
	StartPID  int  `json:"start_pid,omitempty"`
	StartDone bool `json:"start_done,omitempty"`
}

// maxGuardLine bounds one line of the run's messages to its guard, bytes.
const maxGuardLine = 1 << 20

// guardConn is the run's end of the pipe to its guard.
type guardConn struct {
	mu sync.Mutex
	w  *os.File // nil once closed
	// exited is closed when the guard process has ended (its reaper's
	// goroutine is done).
	exited chan struct{}
}

// startGuard starts argv with the journal's path appended, in a session of
// its own, its stdin the read end of a pipe, its output discarded (it
// writes to fault.log), and sends it hello. The guard is reaped by a
// goroutine that ends when it exits.
func startGuard(argv []string, hello guardHello) (*guardConn, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], append(argv[1:], hello.Journal)...)
	cmd.Stdin = pr
	detach(cmd)
	err = cmd.Start()
	pr.Close()
	if err != nil {
		pw.Close()
		return nil, err
	}
	g := &guardConn{w: pw, exited: make(chan struct{})}
	go func() {
		defer close(g.exited)
		_ = cmd.Wait()
	}()
	if err := g.send(hello); err != nil {
		g.close()
		return nil, fmt.Errorf("the fault guard: %w", err)
	}
	return g, nil
}

// send writes v as one JSON line; a guard that is gone is an error.
func (g *guardConn) send(v any) error {
	if g == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil {
		return errors.New("closed")
	}
	_, err = g.w.Write(append(b, '\n'))
	return err
}

// close closes the pipe: the guard reads the journal and exits (or puts
// the fault back if the journal is still pending).
func (g *guardConn) close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
}

// RunFaultGuard is `trigger fault-guard JOURNAL`: it reads the run's
// messages from in until the run's end closes it, then, if the journal at
// journal still says pending, kills a start command still running and
// runs the stop command, and records the outcome in the journal (and the
// registry). It returns ErrFaultNotRestored when that stop failed.
func RunFaultGuard(in io.Reader, journal string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxGuardLine)
	if !sc.Scan() {
		return fmt.Errorf("fault guard: no word from the run: %v", sc.Err())
	}
	var hello guardHello
	if err := json.Unmarshal(sc.Bytes(), &hello); err != nil || hello.Journal != journal || len(hello.Stop) == 0 {
		return fmt.Errorf("fault guard: a first line that is not the run's hello for %s", journal)
	}
	var news guardNews
	for sc.Scan() {
		var n guardNews
		if json.Unmarshal(sc.Bytes(), &n) == nil {
			if n.StartPID > 0 {
				news.StartPID = n.StartPID
			}
			news.StartDone = news.StartDone || n.StartDone
		}
	}
	// Whatever ended the reading (the pipe's close, a line too long), wait
	// for the run's end.
	_, _ = io.Copy(io.Discard, in)
	j, err := readJournal(journal)
	if err != nil || j.State != faultPending {
		return nil
	}
	if news.StartPID > 0 && !news.StartDone {
		killGroup(news.StartPID)
	}
	c := command{Argv: hello.Stop, Dir: hello.Dir, Env: hello.Env, Timeout: faultTimeout(hello.TimeoutS)}
	err = runCommand(c, filepath.Join(filepath.Dir(journal), faultLogFile), "stop (fault guard: the run ended without putting the fault back)", newRedactor(hello.Secrets))
	j.StoppedAt = time.Now().UTC()
	j.State, j.Error, j.RestoredBy = faultRestored, "", restoredByGuard
	if err != nil {
		j.State, j.Error = faultFailed, err.Error()
	}
	if werr := writeJSONAtomic(journal, j); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("%w: fault %q: the guard's stop command failed (%v)", ErrFaultNotRestored, hello.Fault, err)
	}
	if _, ok := registryEntry(hello.StateDir, hello.Target, journal); ok {
		_ = os.Remove(registryPath(hello.StateDir, hello.Target))
	}
	return nil
}

// restoredByGuard is FaultJournal.RestoredBy when the guard ran the stop.
const restoredByGuard = "the fault guard (the run ended without putting the fault back)"
