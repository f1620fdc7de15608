package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/trigger-test/trigger/internal/safetext"
)

// command is a scenario's command as the run executes it: a fault's start
// or stop (and `trigger restore`'s, and the guard's).
type command struct {
	// Argv runs without a shell from Dir.
	Argv []string
	Dir  string
	// Env is set in the child's environment on top of the run's: the one
	// way a secret reaches a command (argv is public: ps, the logs). Only
	// its names are written anywhere.
	Env map[string]string
	// Timeout bounds the command; its process group is killed then.
	Timeout time.Duration
	// Started, when set, is told the command's process id (which leads its
	// process group) once it runs.
	Started func(pid int)
}

// maxCommandOutput bounds what one command's output adds to fault.log,
// bytes; the rest is counted and dropped.
const maxCommandOutput = 1 << 20

// runCommand runs c, its process group killed at the timeout, its output
// appended to logPath under a header naming what, when and the names of
// the environment variables it was given; secrets' values (red) are
// redacted from everything written there.
func runCommand(c command, logPath, what string, red redactor) error {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return errors.New("no command")
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("log %s: %w", logPath, err)
	}
	defer log.Close()
	fmt.Fprintf(log, "== %s %s: %s%s\n", time.Now().UTC().Format(time.RFC3339Nano), what, red.String(safetext.Argv(c.Argv)), envNote(c.Env))
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = commandEnv(c.Env)
	out := &cappedBuffer{max: maxCommandOutput}
	cmd.Stdout, cmd.Stderr = out, out
	killGroupOnCancel(cmd)
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	if err == nil {
		if c.Started != nil {
			c.Started(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("did not finish within %s (killed)", c.Timeout)
	}
	// The output is redacted whole, so a secret is never split between
	// two writes.
	_, _ = io.WriteString(log, red.String(out.String()))
	if err != nil {
		err = red.Err(err)
	}
	fmt.Fprintf(log, "== %s %s ended: %v\n", time.Now().UTC().Format(time.RFC3339Nano), what, errOrOK(err))
	return err
}

// commandEnv is the child's environment: the run's, then env's (which
// win); nil (the run's) without env.
func commandEnv(env map[string]string) []string {
	if len(env) == 0 {
		return nil
	}
	out := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// envNote is what a log says of a command's environment: its names.
func envNote(env map[string]string) string {
	if len(env) == 0 {
		return ""
	}
	return " (environment: " + safetext.Line(strings.Join(slices.Sorted(maps.Keys(env)), ", ")) + ")"
}

// cappedBuffer keeps the first max bytes written and counts the rest.
// Safe for one writer at a time (exec.Cmd serialises a shared
// Stdout/Stderr writer).
type cappedBuffer struct {
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
		b.dropped += int64(len(p) - min(room, len(p)))
	} else {
		b.dropped += int64(len(p))
	}
	return len(p), nil
}

// String is what was kept, and a line saying how much was not.
func (b *cappedBuffer) String() string {
	s := b.buf.String()
	if b.dropped > 0 {
		s += fmt.Sprintf("\n… %d more bytes of output dropped\n", b.dropped)
	}
	return s
}
