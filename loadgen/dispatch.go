package loadgen

import (
	"context"
	"math"
	"time"
)

// fineWindow is the last stretch before a planned time that the dispatcher
// waits out with its sleeper instead of a runtime timer.
const fineWindow = 2 * time.Millisecond

// minBatchGap is the least time between two batches of first attempts
// the dispatcher handles in bulk (dropped or refused together): at a rate
// it cannot send, it handles every arrival due in the gap in one step
// instead of spinning on each, so its work is at most a thousand batches a
// second plus the attempts it sends, whatever the rate.
const minBatchGap = time.Millisecond

// wakeQuantum is the least time between two wakes of the dispatcher that
// sleeps for the next arrival: an arrival planned less than wakeQuantum
// after the last wake is sent at the next quantum instead, together with
// the others due by then. Each wake costs the process a context switch
// and, because the precise sleep holds a thread in a syscall, a hand-off of
// its processor to another thread, which then wakes a third for the
// attempts it spawns: at high rates waking for each arrival was the
// largest share of the driver's CPU time per attempt (bench/loadgen/README.md,
// "CPU per attempt", has the cost of a wake and of each quantum tried).
// The dispatch lag this adds is below wakeQuantum (its median about half
// of it), small beside any client's timeout; at rates below 1/wakeQuantum
// nothing changes.
const wakeQuantum = 500 * time.Microsecond

// dispatch walks the schedule with absolute deadlines: it sleeps on one timer
// until fineWindow before each planned time (start + offset), then precisely
// to it, never chaining sleeps, so timer error does not accumulate; it wakes
// at most once per wakeQuantum (an arrival due sooner after the last wake
// waits for the quantum). When it is behind it sends at once; a planned time
// more than MaxLag in the past is dropped, and arrivals it cannot send are
// dropped or refused in bulk (see first). It returns when the schedule has
// ended (its last stage is over, arrivals or not) or ctx is done.
func (d *Driver) dispatch(ctx context.Context) {
	sched := NewSchedule(d.cfg.Stages, d.cfg.Arrivals, d.cfg.Seed).withPhase(d.cfg.Phase)
	d.schedEnd.Store(int64(sched.End()))
	var offset time.Duration
	var pend *replanReq
	var hold time.Duration // after a bulk batch, nothing is handled before hold
	var woke time.Duration // when the dispatcher last woke from a sleep
	// An arrival held for the quantum must not be dropped as late: a MaxLag
	// under two quanta shrinks it.
	quantum := min(wakeQuantum, d.cfg.MaxLag/2)
	replans := uint64(0)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	defer d.sleeper.close()
	at, ok := sched.Next()
	for {
		if r := d.replanP.Swap(nil); r != nil {
			pend = r
		}
		if pend != nil && (!ok || offset+at >= pend.at) {
			replans++
			sched = NewSchedule(pend.stages, d.cfg.Arrivals, d.cfg.Seed+replans*0x9e3779b97f4a7c15).withPhase(d.cfg.Phase)
			offset, pend = pend.at, nil
			d.schedEnd.Store(int64(offset + sched.End()))
			at, ok = sched.Next()
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if !ok {
			// No arrival is left, but the schedule lasts until its last
			// stage ends (demand dropped to zero is a pause: tracers keep
			// probing, seconds keep being counted, a replan may come).
			wait := offset + sched.End() - d.now()
			if wait <= 0 {
				return
			}
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-d.replanC:
				timer.Stop()
			case <-ctx.Done():
				return
			}
			continue
		}
		planned := offset + at
		due := max(planned, hold)
		wait := due - d.now()
		if wait > 0 && due < woke+quantum {
			due = woke + quantum
			wait = due - d.now()
		}
		slept := wait > 0
		if wait > fineWindow {
			timer.Reset(wait - fineWindow)
			select {
			case <-timer.C:
			case <-d.replanC:
				timer.Stop()
				continue // re-examine the same planned time against the replan
			case <-ctx.Done():
				return
			}
			wait = due - d.now()
		}
		if wait > 0 {
			d.sleeper.sleep(due, d.now)
			wait = due - d.now()
		}
		if wait > 0 { // the sleeper left some of it: the runtime timer
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		if slept {
			woke = d.now()
		}
		horizon := time.Duration(math.MaxInt64) // skipping never crosses a replan
		if pend != nil {
			horizon = pend.at
		}
		if r := d.replanP.Load(); r != nil {
			horizon = min(horizon, r.at)
		}
		if d.first(ctx, planned, sched, offset, horizon) {
			hold = d.now() + minBatchGap
		}
		at, ok = sched.Next()
	}
}

// first handles the first attempt planned at planned (an offset from the
// run's start; sched's offsets count from offset), now due. It sends it
// when it can. Otherwise it handles, with it and in one step whatever
// their number, the other arrivals of sched that share its fate, planned
// before horizon:
//
//   - more than MaxLag late: it and every arrival more than MaxLag late
//     are dropped;
//   - more than MaxInFlight arrivals due (a backlog no catch-up could send:
//     at most MaxInFlight attempts are in flight at once): it and the
//     oldest of them are dropped, MaxInFlight/2 are left to catch up on;
//   - no slot free (MaxInFlight attempts in flight): it and every arrival
//     due now are refused.
//
// It reports whether it handled more than the one arrival.
func (d *Driver) first(ctx context.Context, planned time.Duration, sched *Schedule, offset, horizon time.Duration) bool {
	now := d.now()
	if now-planned > d.cfg.MaxLag {
		n := 1 + sched.SkipBefore(min(now-d.cfg.MaxLag, horizon)-offset)
		d.notSent(now, n, false)
		return n > 1
	}
	limit := float64(d.bounds.MaxInFlight)
	if due := Expected(sched.stages, min(now, horizon)-offset); due-sched.target > limit {
		// Keep half: the other half is room for the arrivals that come
		// due while it catches up (at least one per minBatchGap above
		// 1,000/s), else the next batch is too far behind again, and
		// so on: every arrival dropped, none sent.
		n := 1 + sched.skipTo(due-limit/2)
		d.notSent(now, n, false)
		return n > 1
	}
	if !d.acquire() {
		n := 1 + sched.SkipBefore(min(now+1, horizon)-offset)
		d.notSent(now, n, true)
		return n > 1
	}
	d.pending.Add(1)
	d.retrier.FirstAttempt(now)
	d.attempts.Add(1)
	go d.run(ctx, logical{id: d.seq.Add(1), req: d.mix.draw(), attempt: 1, planned: planned})
	return false
}

// notSent counts n first attempts planned and not sent, at now: refused
// (no slot) or dropped (too late, or beyond what a catch-up could send).
func (d *Driver) notSent(now time.Duration, n int64, refused bool) {
	d.rec.add(now, func(s *Second) {
		s.Planned += n
		if refused {
			s.Refused += n
		} else {
			s.Dropped += n
		}
	})
	d.met.planned.Add(float64(n))
	if refused {
		d.met.refused.Add(float64(n))
	} else {
		d.met.dropped.Add(float64(n))
	}
}

// tracers sends wait tracers evenly at Config.Tracers.Rate from the start
// until the schedule has ended (schedDone) or ctx is done. A tracer takes an
// attempt slot like any attempt; one that finds none (MaxInFlight in
// flight, or Bounds.MaxTracers tracers) is not sent and is counted
// (Second.TracerRefused): tracers never wait for a slot.
func (d *Driver) tracers(ctx context.Context, schedDone <-chan struct{}) {
	gap := time.Duration(float64(time.Second) / d.cfg.Tracers.Rate)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	// sleep waits for wait, false when the schedule ends or ctx is done first.
	sleep := func(wait time.Duration) bool {
		timer.Reset(wait)
		select {
		case <-timer.C:
			return true
		case <-schedDone:
		case <-ctx.Done():
		}
		return false
	}
	for n := int64(0); ; n++ {
		planned := time.Duration(n) * gap
		if wait := planned - d.now(); wait > 0 {
			if !sleep(wait) {
				return
			}
		} else if d.now()-planned > d.cfg.MaxLag {
			continue // skip tracers the driver is too late for
		}
		select {
		case <-schedDone:
			return
		case <-ctx.Done():
			return
		default:
		}
		if planned >= time.Duration(d.schedEnd.Load()) {
			// At or past the schedule's end: no tracer, but a replan may
			// still extend the schedule, so look again a gap later.
			n--
			if !sleep(gap) {
				return
			}
			continue
		}
		if !d.acquireTracer() {
			now := d.now()
			d.rec.add(now, func(s *Second) { s.TracerRefused++ })
			d.met.tracerRefused.Inc()
			continue
		}
		d.attempts.Add(1)
		go d.trace(ctx, uint64(n))
	}
}
