package staging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// logTail is how much of a child's log (stdout and stderr) an error
// message quotes, bytes.
const logTail = 4 << 10

// proc is a child process owned by this package. Its stdout and stderr go
// to a file in its directory (no copying goroutine). One goroutine waits
// for it and ends with it. Stop, or the end of the context it was started
// with, sends SIGTERM and, after its grace period, SIGKILL; on Linux the
// child is also killed if this process dies (Pdeathsig).
type proc struct {
	name    string
	logPath string
	cancel  context.CancelFunc
	done    chan struct{} // closed once the process has been waited for

	// Set before done is closed, read after.
	waitErr  error // cmd.Wait's result
	asked    bool  // the process ended after we (or ctx) asked it to
	stopOnce sync.Once
}

// startProc runs bin with args in dir, its output in dir/name.log. grace is
// how long it may take to exit after SIGTERM before it is killed.
func startProc(ctx context.Context, name, bin string, args []string, dir string, grace time.Duration) (*proc, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("staging: %s log: %w", name, err)
	}
	defer logf.Close() // the child holds its own descriptor
	pctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(pctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = grace
	ownChild(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("staging: start %s: %w", name, err)
	}
	p := &proc{name: name, logPath: logPath, cancel: cancel, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.waitErr, p.asked = err, pctx.Err() != nil
		close(p.done)
	}()
	return p, nil
}

// exited is closed when the process has ended.
func (p *proc) exited() <-chan struct{} { return p.done }

// stop asks the process to end (SIGTERM, SIGKILL after the grace period),
// waits for it, and returns an error if it had ended on its own before it
// was asked to. Idempotent.
func (p *proc) stop() error {
	p.stopOnce.Do(p.cancel)
	<-p.done
	return p.unexpected()
}

// unexpected describes an exit nobody asked for; nil while it runs or when
// it was asked to end. Call only after done is closed.
func (p *proc) unexpected() error {
	if p.asked {
		return nil
	}
	err := p.waitErr
	if err == nil {
		err = errors.New("exit status 0")
	}
	return fmt.Errorf("staging: %s ended on its own: %v\n%s", p.name, err, p.tail())
}

// tail returns the end of the process's log, for error messages.
func (p *proc) tail() string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > logTail {
		_, _ = f.Seek(fi.Size()-logTail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(log empty)"
	}
	return s
}

// bindConflict reports whether the process's log says its port was taken
// (between FreePort and its bind), so that a new port may be tried.
func (p *proc) bindConflict() bool {
	return strings.Contains(strings.ToLower(p.tail()), "address already in use")
}

// waitReady calls ready every pollEvery until it returns nil, the process
// ends, ctx ends or timeout passes; the error quotes the process's log.
func (p *proc) waitReady(ctx context.Context, timeout time.Duration, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for {
		if last = ready(ctx); last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("staging: %s ended before it was ready: %v\n%s", p.name, p.waitErr, p.tail())
		case <-ctx.Done():
			return fmt.Errorf("staging: %s not ready after %s (%v): last check: %v\n%s", p.name, timeout, ctx.Err(), last, p.tail())
		case <-tick.C:
		}
	}
}

// pollEvery is the period of readiness checks.
const pollEvery = 50 * time.Millisecond
