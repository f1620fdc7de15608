package runner

import (
	"context"
	"fmt"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// onTrapState is the scenario's on_trap command under way (the referee
// judges the action; the run runs it).
type onTrapState struct {
	// err is a command's failure; written by its goroutine before done is
	// closed, read only after stop.
	err     string
	cancel  context.CancelFunc
	done    chan struct{} // closed when a command has ended
	stopped bool          // stop has run
	ours    atomic.Bool   // the run cancelled the command itself
}

// startOnTrap runs the scenario's on_trap action once the service is
// judged trapped, or seen failing past its recovery budget: drop demand to zero, set it to a rate, or run a command
// (demand stays at baseline).
func (r *run) startOnTrap(now float64) {
	ot := r.spec.OnTrap
	st := &onTrapState{}
	r.onTrap = st
	verdict, _ := r.ref.Verdict()
	at := now
	switch ot.Action {
	case vocab.TrapDrop, vocab.TrapRate:
		rate := 0.0
		if ot.Action == vocab.TrapRate {
			rate = ot.Rate
		}
		// Agents change their schedule a moment later than one driver
		// does: the way back is timed from then.
		at = max(at, r.drv.Replan([]loadgen.Stage{loadgen.Constant(ot.Observe+time.Minute, rate)}).Seconds())
		r.opts.logf("on_trap: %s; demand set to %g/s, watching for %s", verdict, rate, ot.Observe)
	case vocab.TrapCommand:
		ctx, cancel := context.WithTimeout(context.Background(), ot.Observe)
		st.cancel, st.done = cancel, make(chan struct{})
		cmd := exec.CommandContext(ctx, ot.Command[0], ot.Command[1:]...)
		// Secrets reach it through its environment, never its argv.
		cmd.Env = commandEnv(ot.Env)
		// The command and everything it starts form one process group,
		// killed as a whole when the run no longer needs it; output pipes
		// held by a stray grandchild cannot keep the run waiting.
		killGroupOnCancel(cmd)
		cmd.WaitDelay = 2 * time.Second
		r.opts.logf("on_trap: %s; running %s%s", verdict, safetext.Argv(ot.Command), envNote(ot.Env))
		go func() {
			defer close(st.done)
			// Only the first 400 bytes are reported: at most that much is kept.
			out := &cappedBuffer{max: 400}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Run(); err != nil && !st.ours.Load() {
				st.err = fmt.Sprintf("%s: %v: %s", safetext.Argv(ot.Command), err, truncate(out.buf.String(), 400))
			}
		}()
	}
	r.ref.OnTrapStarted(at)
	r.splitPhase(at, analysis.PhaseOnTrap)
	r.setPhase(analysis.PhaseOnTrap)
}

// stopOnTrap ends a command still running (once the service is back, or
// when the run stops for any reason) and waits for it. Safe to call twice.
func (r *run) stopOnTrap() {
	st := r.onTrap
	if st == nil || st.stopped {
		return
	}
	st.stopped = true
	if st.cancel != nil {
		select {
		case <-st.done:
		default:
			st.ours.Store(true)
		}
		st.cancel()
		<-st.done
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
