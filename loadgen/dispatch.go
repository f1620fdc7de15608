package loadgen

import (
	"context"
	"runtime"
	"time"
)

// fineWindow is the last stretch before a planned time that the dispatcher
// sleeps with preciseSleep instead of a runtime timer.
const fineWindow = 2 * time.Millisecond

// dispatch walks the schedule with absolute deadlines: it sleeps on one timer
// until fineWindow before each planned time (start + offset), then precisely
// to it, never chaining sleeps, so timer error does not accumulate. When it is behind it sends at once; a planned
// time more than MaxLag in the past is dropped. It returns when the schedule
// has ended (its last stage is over, arrivals or not) or ctx is done.
func (d *Driver) dispatch(ctx context.Context) {
	sched := NewSchedule(d.cfg.Stages, d.cfg.Arrivals, d.cfg.Seed)
	d.schedEnd.Store(int64(sched.End()))
	var offset time.Duration
	var pend *replanReq
	replans := uint64(0)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	at, ok := sched.Next()
	for {
		if r := d.replanP.Swap(nil); r != nil {
			pend = r
		}
		if pend != nil && (!ok || offset+at >= pend.at) {
			replans++
			sched = NewSchedule(pend.stages, d.cfg.Arrivals, d.cfg.Seed+replans*0x9e3779b97f4a7c15)
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
		wait := planned - d.now()
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
			wait = planned - d.now()
		}
		if wait > 0 && d.precise {
			// Let the attempts just spawned (queued on this P) run first:
			// nanosleep holds the P, and the runtime may take up to 10 ms to
			// hand it to them.
			runtime.Gosched()
			if wait = planned - d.now(); wait > 0 {
				preciseSleep(wait)
			}
			wait = planned - d.now()
		}
		if wait > 0 { // no precise sleep, or it woke early: the runtime timer
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		d.first(ctx, planned)
		at, ok = sched.Next()
	}
}

// first sends, drops or refuses the first attempt planned at planned.
func (d *Driver) first(ctx context.Context, planned time.Duration) {
	now := d.now()
	if now-planned > d.cfg.MaxLag {
		d.rec.add(now, func(s *Second) { s.Planned++; s.Dropped++ })
		d.met.planned.Inc()
		d.met.dropped.Inc()
		return
	}
	if !d.acquire() {
		d.rec.add(now, func(s *Second) { s.Planned++; s.Refused++ })
		d.met.planned.Inc()
		d.met.refused.Inc()
		return
	}
	d.pending.Add(1)
	d.retrier.FirstAttempt(now)
	d.attempts.Add(1)
	go d.run(ctx, logical{id: d.seq.Add(1), attempt: 1, planned: planned})
}

// tracers sends wait tracers evenly at Tracers.Rate from the start until the
// schedule has ended (schedDone) or ctx is done.
func (d *Driver) tracers(ctx context.Context, schedDone <-chan struct{}) {
	gap := time.Duration(float64(time.Second) / d.cfg.Tracers.Rate)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for n := int64(0); ; n++ {
		planned := time.Duration(n) * gap
		if wait := planned - d.now(); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-schedDone:
				return
			case <-ctx.Done():
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
			timer.Reset(gap)
			select {
			case <-timer.C:
			case <-schedDone:
				return
			case <-ctx.Done():
				return
			}
			continue
		}
		d.attempts.Add(1)
		go d.trace(ctx, uint64(n))
	}
}
