package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/prom"
)

// brakeEvent is why a brake stopped the run's load: a stop condition that
// fired or could not be evaluated, or the abort file.
type brakeEvent struct {
	name   string // "stop_when.NAME" or "abort_file"
	reason string
	at     time.Time
}

// brakes watch the scenario's stop conditions and the abort file, each in
// a goroutine of its own, off the run loop: the loop only reads fired
// (never blocking) and checks that every condition has been evaluated
// lately (overdue), so a brake whose server hangs still stops the run.
type brakes struct {
	conds     []*conditionWatch
	abortFile string
	fired     chan brakeEvent // each watcher sends at most once: cap = watchers
	wake      chan struct{}   // a send on fired also signals here, to wake the loop
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// defaultStopTimeout bounds one evaluation of a stop condition that sets
// no timeout.
const defaultStopTimeout = 2 * time.Second

// stopEvery is how often a stop condition is evaluated: twice a second, so
// that with the loop woken at once the load stops within a second of the
// condition becoming true.
const stopEvery = 500 * time.Millisecond

// abortEvery is how often the abort file is looked for.
const abortEvery = 200 * time.Millisecond

// conditionWatch is one stop condition with where it is evaluated.
type conditionWatch struct {
	cond    convert.Brake
	querier prom.Querier
	remote  *prom.Remote // owned (nil: the run's own Prometheus)
	// last is when the latest evaluation ended (unix ns); an evaluation
	// cannot take longer than the condition's timeout.
	last atomic.Int64
}

// newBrakes connects every stop condition to its Prometheus (the run's own
// when it names no address) without starting them.
func newBrakes(opts Options, mets *metrics) (*brakes, error) {
	b := &brakes{abortFile: opts.AbortFile}
	for _, c := range opts.Test.Run.Brakes {
		if c.Timeout <= 0 {
			c.Timeout = defaultStopTimeout
		}
		w := &conditionWatch{cond: c}
		switch {
		case c.Address != "":
			cfg := prom.RemoteConfig{Address: c.Address, Timeout: c.Timeout}
			if err := remoteAuth(&cfg, c.Auth, c.TLS, opts.getenv); err != nil {
				b.close()
				return nil, &Error{Kind: KindUsage, Err: fmt.Errorf("stop_when %q: %w", c.Name, err)}
			}
			r, err := prom.NewRemote(cfg)
			if err != nil {
				b.close()
				return nil, failf(KindUsage, "stop_when %q: %w", c.Name, err)
			}
			w.remote, w.querier = r, r
		case mets != nil:
			w.querier = mets.querier
		default:
			b.close()
			return nil, failf(KindUsage, "stop_when %q names no address and the scenario has no prometheus block to evaluate it on", c.Name)
		}
		b.conds = append(b.conds, w)
	}
	b.fired = make(chan brakeEvent, len(b.conds)+1)
	b.wake = make(chan struct{}, 1)
	return b, nil
}

// check evaluates every brake once, now, and returns the first that fires
// (nil: none). The preflight calls it before any load is sent.
func (b *brakes) check(ctx context.Context) *brakeEvent {
	if ev := b.abortPresent(); ev != nil {
		return ev
	}
	events := make([]*brakeEvent, len(b.conds))
	var wg sync.WaitGroup
	for i, w := range b.conds {
		wg.Go(func() { events[i] = w.evaluate(ctx) })
	}
	wg.Wait()
	for _, ev := range events {
		if ev != nil {
			return ev
		}
	}
	return nil
}

// start watches every brake until stop: each stop condition every
// stopEvery (twice a second), the abort file every abortEvery (five times
// a second).
func (b *brakes) start() {
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	now := time.Now().UnixNano()
	for _, w := range b.conds {
		w.last.Store(now)
		b.wg.Go(func() { b.watch(ctx, stopEvery, func() *brakeEvent { return w.evaluate(ctx) }) })
	}
	if b.abortFile != "" {
		b.wg.Go(func() { b.watch(ctx, abortEvery, b.abortPresent) })
	}
}

// watch calls probe every period until it fires or ctx ends.
func (b *brakes) watch(ctx context.Context, period time.Duration, probe func() *brakeEvent) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ev := probe(); ev != nil && ctx.Err() == nil {
			b.fired <- *ev // never blocks: one send per watcher
			select {
			case b.wake <- struct{}{}:
			default:
			}
			return
		}
	}
}

// poll returns a brake that fired, without waiting: one a watcher
// reported, or a stop condition not evaluated within its timeout and a
// second (its server hangs in a way its deadline did not catch).
func (b *brakes) poll(now time.Time) *brakeEvent {
	if b == nil {
		return nil
	}
	select {
	case ev := <-b.fired:
		return &ev
	default:
	}
	for _, w := range b.conds {
		since := now.Sub(time.Unix(0, w.last.Load()))
		if since > w.cond.Timeout+stopEvery+time.Second {
			return &brakeEvent{name: "stop_when." + w.cond.Name, at: now,
				reason: fmt.Sprintf("stop_when %q has not been evaluated for %s: a brake that cannot be checked stops the run", w.cond.Name, since.Round(100*time.Millisecond))}
		}
	}
	return nil
}

// evaluate runs the condition's query once, bounded by its timeout: it
// fires on any sample in the result, and when the query cannot be
// evaluated; nil when the result is empty (or ctx ended).
func (w *conditionWatch) evaluate(ctx context.Context) *brakeEvent {
	defer func() { w.last.Store(time.Now().UnixNano()) }()
	qctx, cancel := context.WithTimeout(ctx, w.cond.Timeout)
	defer cancel()
	v, err := w.querier.Instant(qctx, w.cond.Query, time.Now())
	ev := &brakeEvent{name: "stop_when." + w.cond.Name, at: time.Now()}
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, prom.ErrNaN):
		// A NaN is a sample: the condition's result is not empty.
		ev.reason = fmt.Sprintf("stop_when %q fired: %s returned NaN", w.cond.Name, w.cond.Query)
	case errors.Is(err, prom.ErrNoData):
		return nil
	case err == nil:
		ev.reason = fmt.Sprintf("stop_when %q fired: %s returned %g", w.cond.Name, w.cond.Query, v)
	case errors.Is(err, prom.ErrManySeries):
		ev.reason = fmt.Sprintf("stop_when %q fired: %s returned several series", w.cond.Name, w.cond.Query)
	default:
		ev.reason = fmt.Sprintf("stop_when %q could not be evaluated (%v): a brake that cannot be checked stops the run", w.cond.Name, err)
	}
	return ev
}

// abortPresent fires when the abort file exists.
func (b *brakes) abortPresent() *brakeEvent {
	if b.abortFile == "" {
		return nil
	}
	if _, err := os.Stat(b.abortFile); err != nil {
		return nil
	}
	return &brakeEvent{name: "abort_file", at: time.Now(), reason: fmt.Sprintf("the abort file %s appeared", b.abortFile)}
}

// woken delivers when a brake fired, for the run loop to wake at once
// (nil brakes: never).
func (b *brakes) woken() <-chan struct{} {
	if b == nil {
		return nil
	}
	return b.wake
}

// stop ends the watchers (waiting at most a second: their queries honour
// the cancellation) and closes the connections the brakes own.
func (b *brakes) stop() {
	if b == nil {
		return
	}
	if b.cancel != nil {
		b.cancel()
		done := make(chan struct{})
		go func() { b.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	b.close()
}

func (b *brakes) close() {
	for _, w := range b.conds {
		if w.remote != nil {
			w.remote.Close()
		}
	}
}
