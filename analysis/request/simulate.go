package request

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// Simulate runs the request-level model: first attempts arrive on
// the stages (Poisson or uniform), join a FIFO queue (shared, or one per pod
// behind round robin) of c = Pods × Workers servers, and are served whether
// or not their client is still waiting, unless deadlines propagate; under
// the concurrency law (Config.Concurrency) they share the service instead,
// each taking L₀ + n/C at n in flight. A
// client gives up τ_out after its attempt arrived (docs/model.md, "The
// trap", in delay form) and the retry decider says whether, and after what
// backoff, it tries again. The same seed gives the same result. ctx is
// checked every 65,536 events; a cancelled run returns ctx's error.
func Simulate(ctx context.Context, cfg Config) (analysis.ModelResult, error) {
	if err := cfg.normalize(); err != nil {
		return analysis.ModelResult{}, err
	}
	r := newSim(cfg)
	if err := r.run(ctx); err != nil {
		return analysis.ModelResult{}, fmt.Errorf("request model: %w", err)
	}
	return r.res, nil
}

// sim is the state of one request-level run.
type sim struct {
	cfg      Config
	timeout  float64
	srv      *servers // the queue law's servers; nil under the concurrency law
	share    *sharing // the concurrency law's requests in flight; nil under the queue law
	station  station  // srv or share
	svc      serviceSampler
	arrivals *arrivalGen
	coin     *rand.Rand // hidden copies
	dec      RetryDecider
	ring     timeoutRing
	retries  retryHeap
	tl       *timeline

	capacity           float64
	bound              float64 // admission bound, seconds; 0 = none
	perServerS         float64 // a mean job's share of its queue: E[S]/servers per queue
	innerWhole         int     // ⌊A_inner⌋ − 1 copies always, one more with probability innerFrac
	innerFrac          float64
	calmFrom           []bool // [i]: stages i.. all below capacity
	horizon, stopAt    float64
	stopping           bool
	spikeStart         float64
	spikeEnd           float64
	firstFail, lastBad float64 // arrival times of failing attempts; NaN when none
	cleanFrom          float64 // first empty instant after the last failure and the spike; NaN when none yet
	lostFirst          float64
	res                analysis.ModelResult
}

// Seed streams: one per source of randomness, so that changing one part of
// a configuration leaves the others' draws alone.
const (
	streamArrivals = 0x61727269 // "arri"
	streamService  = 0x73657276 // "serv"
	streamHidden   = 0x68696464 // "hidd"
)

func newSim(cfg Config) *sim {
	r := &sim{cfg: cfg, timeout: cfg.TimeoutS, capacity: cfg.CapacityPerS()}
	queues, perQueue := cfg.Pods, cfg.Workers
	if cfg.Queue == vocab.QueueShared {
		queues, perQueue = 1, cfg.Pods*cfg.Workers
	}
	if cfg.Concurrency {
		r.share = &sharing{floorS: cfg.FloorS, capacity: r.capacity}
		r.station = r.share
	} else {
		r.srv = newServers(queues, perQueue)
		r.station = r.srv
	}
	mean := float64(cfg.Workers) / cfg.PodRatePerS
	r.svc = newServiceSampler(cfg.ServiceTime, mean, cfg.ServiceCV, rand.New(rand.NewPCG(cfg.Seed, streamService)))
	r.arrivals = newArrivalGen(cfg.Stages, cfg.Arrivals, rand.New(rand.NewPCG(cfg.Seed, streamArrivals)))
	r.coin = rand.New(rand.NewPCG(cfg.Seed, streamHidden))
	if cfg.Retry.New != nil {
		r.dec = cfg.Retry.New(cfg.Seed)
	}
	r.bound = cfg.AdmissionBoundS
	r.perServerS = mean / float64(perQueue)
	whole := math.Floor(cfg.InnerAmplification)
	r.innerWhole, r.innerFrac = int(whole)-1, cfg.InnerAmplification-whole

	r.calmFrom = make([]bool, len(cfg.Stages)+1)
	r.calmFrom[len(cfg.Stages)] = true
	for i := len(cfg.Stages) - 1; i >= 0; i-- {
		r.calmFrom[i] = r.calmFrom[i+1] && cfg.Stages[i].RatePerS < r.capacity
		r.horizon += cfg.Stages[i].DurationS
	}
	r.stopAt = r.horizon
	r.spikeStart, r.spikeEnd = cfg.SpikeStartS, cfg.SpikeEndS
	r.firstFail, r.lastBad, r.cleanFrom = math.NaN(), math.NaN(), math.NaN()
	r.tl = newTimeline(cfg, r.horizon)
	r.res = analysis.ModelResult{Seed: cfg.Seed, CollapsedAtS: math.NaN(), SpikeStartS: cfg.SpikeStartS, SpikeEndS: cfg.SpikeEndS, T0S: math.NaN()}
	return r
}

func (r *sim) run(ctx context.Context) error {
	next := r.arrivals.next()
	for n := 1; ; n++ {
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		t, src := next, 0
		if x := r.ring.peek(); x < t {
			t, src = x, 1
		}
		if x := r.retries.peek(); x < t {
			t, src = x, 2
		}
		if t >= r.stopAt {
			break
		}
		for t >= r.tl.nextBoundary {
			r.tl.flush(r.station)
		}
		switch src {
		case 0:
			next = r.arrivals.next()
			r.arrive(t, 1, t, 0)
		case 1:
			r.failed(t, r.ring.pop(), FailureTimeout)
		case 2:
			p := r.retries.pop()
			r.arrive(t, p.attempt, p.started, p.prevDelay)
		}
		if r.ring.size+len(r.retries.h)+r.inFlight() > r.cfg.MaxPending {
			r.res.Truncated = true
			r.stopAt = t
		}
		if src != 1 && r.cfg.StopWhenRecovered && !r.stopping && t >= r.spikeEnd && !math.IsNaN(r.cleanFrom) &&
			r.ring.size == 0 && len(r.retries.h) == 0 && r.calmFrom[r.arrivals.idx] {
			// Recovered: run on to the end of the sample, so the timeline's
			// last row is whole.
			r.stopping = true
			r.stopAt = math.Min(r.stopAt, math.Ceil(t/r.cfg.SampleS)*r.cfg.SampleS)
		}
	}
	r.finish(math.Min(r.stopAt, r.horizon))
	return nil
}

// arrive handles one client attempt arriving at t.
func (r *sim) arrive(t float64, attempt int32, started, prevDelay float64) {
	c := &r.res.Counts
	c.Attempts++
	first := attempt == 1
	row := r.tl.arrival(t, attempt)
	if first {
		c.FirstAttempts++
		if r.dec != nil {
			r.dec.FirstAttempt(t)
		}
	}
	if idle := r.station.idleFrom(); t >= idle && math.IsNaN(r.cleanFrom) {
		// Every server is idle: the queue has been empty since then.
		if e := math.Max(idle, r.spikeEnd); e <= t {
			r.cleanFrom = e
		}
	}
	if r.share != nil {
		r.arriveSharing(t, first, row, pending{at: t, started: started, prevDelay: prevDelay, attempt: attempt})
		return
	}
	q := r.srv.pick()
	if r.bound > 0 && r.srv.backlog(q, t)+r.perServerS > r.bound {
		c.Refused++
		row.Refused++
		if first {
			row.FirstRefused++
		}
		r.bad(t, first)
		r.failed(t, pending{at: t, started: started, prevDelay: prevDelay, attempt: attempt}, FailureRefused)
		return
	}
	start := math.Max(t, r.srv.earliest(q))
	if w := start - t; w > row.MaxWait {
		row.MaxWait = w
		if r.cfg.CollapseWaitS > 0 && w > r.cfg.CollapseWaitS && math.IsNaN(r.res.CollapsedAtS) {
			r.res.CollapsedAtS = t
			r.stopAt = t
		}
	}
	done := start + r.serviceTime(start)
	// The floor is spent besides the wait and the service: what is left
	// of the patience for them is τ_out − L₀.
	late := done-t+r.cfg.FloorS > r.timeout
	if late && r.cfg.DeadlinePropagation && start+r.cfg.FloorS > t+r.timeout {
		c.Dropped++
	} else {
		r.srv.occupy(q, done)
		r.tl.served(done, late)
	}
	r.outcome(t, first, row, late, pending{at: t, started: started, prevDelay: prevDelay, attempt: attempt})
}

// outcome counts an admitted attempt that arrived at t as answered in time
// or late; a late one times out τ_out after it arrived, and hidden layers
// add their copies of it.
func (r *sim) outcome(t float64, first bool, row *analysis.RowCounts, late bool, p pending) {
	c := &r.res.Counts
	if !late {
		c.Succeeded++
		if first {
			row.Goodput++
		}
		if r.dec != nil {
			r.dec.Succeeded(t)
		}
		return
	}
	c.TimedOut++
	row.TimedOut++
	if first {
		row.FirstTimedOut++
	}
	r.bad(t, first)
	p.at = t + r.timeout
	r.ring.push(p)
	if r.innerWhole > 0 || r.innerFrac > 0 {
		r.hidden(t)
	}
}

// arriveSharing handles an attempt arriving at t under the concurrency
// law: refused when the admission bound holds fewer than the n + 1
// requests it would make (n/C above the floor), else in flight for
// L(n) = L₀ + n/C, late when that passes τ_out. With no queue there is
// nothing a propagated deadline could drop: it starts at once.
func (r *sim) arriveSharing(t float64, first bool, row *analysis.RowCounts, p pending) {
	c := &r.res.Counts
	if r.bound > 0 && float64(r.share.inFlight(t)+1)/r.capacity > r.bound {
		c.Refused++
		row.Refused++
		if first {
			row.FirstRefused++
		}
		r.bad(t, first)
		r.failed(t, p, FailureRefused)
		return
	}
	l := r.share.latency(t, r.capacityShare(t))
	if w := l - r.cfg.FloorS; w > row.MaxWait {
		row.MaxWait = w
		if r.cfg.CollapseWaitS > 0 && w > r.cfg.CollapseWaitS && math.IsNaN(r.res.CollapsedAtS) {
			r.res.CollapsedAtS = t
			r.stopAt = t
		}
	}
	late := l > r.timeout
	r.share.add(t + l)
	r.tl.served(t+l, late)
	if !late && math.IsNaN(r.cleanFrom) && !math.IsNaN(r.lastBad) {
		// The law has no queue to empty: the service is back with the
		// first attempt answered in time after the last that was not.
		r.cleanFrom = math.Max(t, r.spikeEnd)
	}
	r.outcome(t, first, row, late, p)
}

// capacityShare is the share of the capacity left at t: FaultCapacity
// while the fault holds, else 1.
func (r *sim) capacityShare(t float64) float64 {
	if f := r.cfg.FaultCapacity; f > 0 && t >= r.cfg.FaultStartS && t < r.cfg.FaultEndS {
		return f
	}
	return 1
}

// inFlight is the requests the concurrency law holds in flight (zero under
// the queue law, whose servers are bounded).
func (r *sim) inFlight() int {
	if r.share == nil {
		return 0
	}
	return len(r.share.done)
}

// serviceTime draws the service time of a request whose service starts
// at start: 1/FaultCapacity times as long while the fault holds.
func (r *sim) serviceTime(start float64) float64 {
	s := r.svc.draw()
	if f := r.cfg.FaultCapacity; f > 0 && start >= r.cfg.FaultStartS && start < r.cfg.FaultEndS {
		return s / f
	}
	return s
}

// hidden adds the copies hidden retry layers send of a timing-out attempt:
// pure work, answered to nobody.
func (r *sim) hidden(t float64) {
	n := r.innerWhole
	if r.innerFrac > 0 && r.coin.Float64() < r.innerFrac {
		n++
	}
	c := &r.res.Counts
	for range n {
		c.Hidden++
		r.tl.hidden(t)
		if r.share != nil {
			if r.bound > 0 && float64(r.share.inFlight(t)+1)/r.capacity > r.bound {
				c.HiddenRefused++
				continue
			}
			l := r.share.latency(t, r.capacityShare(t))
			r.share.add(t + l)
			r.tl.served(t+l, true)
			continue
		}
		q := r.srv.pick()
		if r.bound > 0 && r.srv.backlog(q, t)+r.perServerS > r.bound {
			c.HiddenRefused++
			continue
		}
		start := math.Max(t, r.srv.earliest(q))
		if r.cfg.DeadlinePropagation && start > t+r.timeout {
			c.Dropped++
			continue
		}
		done := start + r.serviceTime(start)
		r.srv.occupy(q, done)
		r.tl.served(done, true)
	}
}

// bad records a failing attempt arriving at t.
func (r *sim) bad(t float64, first bool) {
	if math.IsNaN(r.firstFail) && t >= r.spikeStart {
		r.firstFail = t
	}
	r.lastBad, r.cleanFrom = t, math.NaN()
	if first {
		r.lostFirst++
	}
	if r.stopping {
		r.stopping, r.stopAt = false, r.horizon
	}
}

// failed tells the client at t that attempt p failed, and schedules its
// retry when the decider grants one.
func (r *sim) failed(t float64, p pending, kind FailureKind) {
	if r.dec == nil {
		r.giveUp(t)
		return
	}
	retry, delay := r.dec.Failed(t, RetryFailure{Attempt: int(p.attempt), Kind: kind, StartedS: p.started, PrevDelayS: p.prevDelay})
	if !retry {
		r.giveUp(t)
		return
	}
	at := t + math.Max(delay, 0)
	if kind == FailureRefused {
		at = t + math.Max(delay, r.cfg.RefusalDelayS)
	}
	if at <= t {
		// An immediate retry after a timeout: the event is now.
		r.arrive(t, p.attempt+1, p.started, 0)
		return
	}
	r.retries.push(pending{at: at, started: p.started, prevDelay: delay, attempt: p.attempt + 1})
}

func (r *sim) giveUp(t float64) {
	r.res.Counts.GaveUp++
	r.tl.row(t).GaveUp++
}
