package specimen

import (
	"context"
	"time"
)

// sampleEvery is the period of the control loop's samples.
const sampleEvery = 250 * time.Millisecond

// sample is a reading of the cumulative counters.
type sample struct {
	at      time.Time
	ingress uint64
	first   uint64
	busy    int64 // ns
}

// control samples the counters, keeps specimen_busy_ratio, and runs the
// autoscaler every sync period. Its ring of samples is bounded by the
// longest window it reads.
type control struct {
	s     *Server
	ring  []sample
	next  int
	full  bool
	sc    *scaler
	every time.Duration
}

func newControl(s *Server) *control {
	every := sampleEvery
	if a := s.cfg.Autoscaler; a.Enabled && a.SyncPeriod < every {
		every = a.SyncPeriod
	}
	window := time.Second
	if a := s.cfg.Autoscaler; a.Enabled && a.MetricWindow > window {
		window = a.MetricWindow
	}
	c := &control{s: s, every: every, ring: make([]sample, int(window/every)+2)}
	if s.cfg.Autoscaler.Enabled {
		c.sc = &scaler{cfg: s.cfg.Autoscaler, podRate: s.cfg.PodRate}
	}
	return c
}

func (c *control) read(now time.Time) sample {
	k := &c.s.c
	return sample{
		at:      now,
		ingress: k.ingress[KindFirst].Load() + k.ingress[KindRetry].Load() + k.ingress[KindTracer].Load(),
		first:   k.ingress[KindFirst].Load(),
		busy:    k.busyNanos.Load(),
	}
}

func (c *control) push(sm sample) {
	c.ring[c.next] = sm
	c.next = (c.next + 1) % len(c.ring)
	if c.next == 0 {
		c.full = true
	}
}

// since returns the oldest sample no older than window before the newest.
func (c *control) since(newest sample, window time.Duration) sample {
	n := c.next
	if c.full {
		n = len(c.ring)
	}
	best := newest
	for i := 1; i <= n; i++ {
		sm := c.ring[(c.next-i+len(c.ring))%len(c.ring)]
		if newest.at.Sub(sm.at) > window {
			break
		}
		best = sm
	}
	return best
}

// signals over window, ending at newest.
func (c *control) signals(newest sample, window time.Duration) signals {
	old := c.since(newest, window)
	ready := int(c.s.svc.readyCount.Load())
	sig := signals{ready: ready}
	dt := newest.at.Sub(old.at).Seconds()
	if dt <= 0 {
		return sig
	}
	sig.ingressRate = float64(newest.ingress-old.ingress) / dt
	sig.firstRate = float64(newest.first-old.first) / dt
	if ready > 0 {
		sig.busy = min(1, float64(newest.busy-old.busy)/1e9/dt/float64(ready))
	}
	return sig
}

func (c *control) run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	c.push(c.read(time.Now()))
	var lastSync time.Time
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			sm := c.read(time.Now())
			c.push(sm)
			c.s.busy.Store(c.signals(sm, time.Second).busy)
			if c.sc == nil {
				continue
			}
			a := c.s.cfg.Autoscaler
			if sm.at.Sub(start) < a.SyncPeriod || now.Sub(lastSync) < a.SyncPeriod-c.every/2 {
				continue
			}
			lastSync = now
			cur := int(c.s.svc.desired.Load())
			want := c.sc.decide(sm.at, cur, c.signals(sm, a.MetricWindow))
			if want != cur {
				c.s.svc.scaleTo(want, a.DeadTime)
			}
		}
	}
}
