package specimen

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// pod serves one request at a time from its queue. Capacity is modelled by
// waiting, not by burning CPU: the pod keeps an absolute virtual clock
// busyUntil and sleeps until max(now, busyUntil) + s for each request, so
// timer overshoot never accumulates and a 2-core machine models any rate.
type pod struct {
	id     int
	svc    *service
	q      *queue             // its own queue (PerPod) or the shared one
	ctx    context.Context    // cancelled: stop at once (pending pod cancelled, shutdown)
	cancel context.CancelFunc //
	retire chan struct{}      // closed: finish the own queue, then exit
	rng    *rand.Rand         // exponential service times

	busyUntil time.Time
	timer     *time.Timer
	drops     []drop
}

func newPodRand(seed uint64, id int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(id)+0x9e3779b97f4a7c15))
}

// serviceTime draws one service time of a request of the given cost (in
// units of 1/c): cost/c, or exponential with mean cost/c.
func (p *pod) serviceTime(cost float64) time.Duration {
	mean := cost / (p.svc.cfg.PodRate * p.svc.factor())
	if p.svc.cfg.ServiceTime == vocab.ServiceExponential {
		return time.Duration(p.rng.ExpFloat64() * mean * float64(time.Second))
	}
	return time.Duration(mean * float64(time.Second))
}

// run is the pod's life: the dead time, then serving until it is retired
// (and its own queue is empty) or cancelled.
func (p *pod) run(deadTime time.Duration) {
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	defer p.timer.Stop()
	if deadTime > 0 {
		p.timer.Reset(deadTime)
		select {
		case <-p.timer.C:
		case <-p.ctx.Done():
			return
		}
		if !p.svc.markReady(p) {
			return
		}
	}
	shared := p.svc.shared != nil
	retiring := false
	for {
		if retiring && (shared || p.q.closeIfEmpty()) {
			return
		}
		var it *item
		now := p.svc.now()
		it, p.drops = p.q.pop(now, p.drops[:0])
		for i, d := range p.drops {
			p.svc.dropItem(d.it, d.reason)
			p.drops[i] = drop{}
		}
		if it == nil {
			if retiring {
				continue // per-pod: queue empty, close it and go
			}
			select {
			case <-p.q.signal:
			case <-p.retire:
				retiring = true
			case <-p.ctx.Done():
				return
			}
			continue
		}
		if !p.serve(it, now) {
			return
		}
		if !retiring {
			select {
			case <-p.retire:
				retiring = true
			default:
			}
		}
	}
}

// serve spends the service time of it, taken from p.q at now, and counts
// the outcome. It returns false when the pod must stop (shutdown).
func (p *pod) serve(it *item, now time.Time) bool {
	s := p.svc
	s.inService.Add(1)
	idle := sync.OnceFunc(func() { // before answering: backlog() must not count it
		p.q.busy.Add(-1)
		s.inService.Add(-1)
	})
	defer idle()
	if it.gone != nil && it.state.Load() == stateGone {
		// CancelOnDisconnect: the client left before service began.
		s.c.reject(reasonDisconnect)
		s.releaseSlot(it)
		return true
	}
	start := serviceStart(p.busyUntil, it.enq)
	st := p.serviceTime(it.cost)
	p.busyUntil = start.Add(st)
	w := start.Sub(it.arrived)
	s.wait.Observe(w.Seconds())
	s.c.observeWait(w)
	p.timer.Reset(p.busyUntil.Sub(now))
	select {
	case <-p.timer.C:
	case <-it.gone: // nil without CancelOnDisconnect: never ready
		p.timer.Stop()
		t := s.now()
		if d := t.Sub(start); d > 0 {
			s.c.busyNanos.Add(int64(d))
		}
		p.busyUntil = t
		s.c.reject(reasonDisconnect)
		s.releaseSlot(it)
		return true
	case <-p.ctx.Done():
		p.timer.Stop()
		return false
	}
	s.c.busyNanos.Add(int64(st))
	s.releaseSlot(it)
	if it.state.CompareAndSwap(stateWaiting, stateDone) {
		s.c.answered.Add(1)
		idle()
		it.done <- result{status: 200}
	} else {
		s.c.abandoned.Add(1)
	}
	return true
}

// serviceStart is when the pod starts an item on its virtual clock: as soon
// as both the pod (busyUntil) and the item (queued at enq) were there. A
// continuously busy pod thus starts each item exactly when the previous one
// ended, whatever the timer overshoot: next = max(busy_until, enq) + s.
// It is never after the present, so the modelled capacity c is exact.
func serviceStart(busyUntil, enq time.Time) time.Time {
	if busyUntil.After(enq) {
		return busyUntil
	}
	return enq
}
