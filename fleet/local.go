package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LocalEngine runs the agents as processes of this machine: the same
// binary (os.Executable, or Binary), one process per agent.
type LocalEngine struct {
	// Binary is the trigger binary to run; "" = this process's executable.
	Binary string

	mu    sync.Mutex
	procs []*localProc
}

// localProc is one agent process; its waiter goroutine closes done.
type localProc struct {
	cmd    *exec.Cmd
	stderr *tail
	done   chan struct{}
	err    error // the exit status, set before done is closed
}

// agentProcs is the GOMAXPROCS of each of n local agents sharing cpus
// processors (this process's GOMAXPROCS: the cores, or a container's CPU
// limit, which Go reads by itself): its share, at least one, so that N
// agents do not each run as many scheduling threads as there are cores and
// contend for them (what a driver on one processor costs per attempt is
// in bench/loadgen/README.md, "One processor"). A GOMAXPROCS in the
// environment is left alone.
func agentProcs(cpus, n int) int {
	return max(1, cpus/max(n, 1))
}

// Name is "local".
func (e *LocalEngine) Name() string { return "local" }

// Start launches spec.Agents processes of the binary.
func (e *LocalEngine) Start(ctx context.Context, spec AgentSpec) error {
	bin := e.Binary
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("local engine: %w", err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.procs) > 0 {
		return errors.New("local engine: already started")
	}
	if len(spec.Keys) != spec.Agents {
		return fmt.Errorf("local engine: %d keys for %d agents", len(spec.Keys), spec.Agents)
	}
	// The key and the fingerprint go in each process's environment, which
	// only its user can read, not in its argv, which ps shows to all.
	env := append(os.Environ(), CertEnv+"="+spec.CertSHA256)
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(agentProcs(runtime.GOMAXPROCS(0), spec.Agents)))
	}
	for i := range spec.Agents {
		cmd := exec.Command(bin, spec.Command(i)...)
		cmd.Env = append(env[:len(env):len(env)], KeyEnv+"="+spec.Keys[i])
		p := &localProc{cmd: cmd, stderr: &tail{max: 2048}, done: make(chan struct{})}
		cmd.Stderr, cmd.Stdout = p.stderr, p.stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("local engine: %s: %w", AgentName(i), err)
		}
		e.procs = append(e.procs, p)
		go func() { p.err = cmd.Wait(); close(p.done) }()
	}
	return nil
}

// Diagnose says whether agent index's process has exited, with its status
// and the tail of its output.
func (e *LocalEngine) Diagnose(_ context.Context, index int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if index < 0 || index >= len(e.procs) {
		return ""
	}
	p := e.procs[index]
	select {
	case <-p.done:
		status := "exit status 0"
		if p.err != nil {
			status = p.err.Error()
		}
		msg := fmt.Sprintf("process %d exited: %s", p.cmd.Process.Pid, status)
		if t := strings.TrimSpace(p.stderr.String()); t != "" {
			msg += "; output: " + t
		}
		return msg
	default:
		return ""
	}
}

// Kill kills agent index's process at once (tests: a lost agent).
func (e *LocalEngine) Kill(index int) error { return e.Signal(index, os.Kill) }

// Signal sends sig to agent index's process (tests: an eviction's SIGTERM).
func (e *LocalEngine) Signal(index int, sig os.Signal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if index < 0 || index >= len(e.procs) {
		return fmt.Errorf("local engine: no %s", AgentName(index))
	}
	return e.procs[index].cmd.Process.Signal(sig)
}

// Stop gives each process a moment to end by itself (agents stop on the
// coordinator's stop), then kills it and waits for it.
func (e *LocalEngine) Stop(ctx context.Context) error {
	e.mu.Lock()
	procs := e.procs
	e.mu.Unlock()
	grace, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, p := range procs {
		select {
		case <-p.done:
			continue
		case <-grace.Done():
		}
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
