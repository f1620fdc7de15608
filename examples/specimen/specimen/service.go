package specimen

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/vocab"
)

// counters are the cumulative counts behind Stats and /metrics.
type counters struct {
	ingress   [numKinds]atomic.Uint64
	answered  atomic.Uint64
	abandoned atomic.Uint64
	rejected  [len(reasons)]atomic.Uint64
	busyNanos atomic.Int64 // pod busy time, from the virtual clocks
	maxWait   atomic.Int64 // longest arrival-to-service wait, ns

	gwRequests [numGatewayOutcomes]atomic.Uint64
	gwUpstream atomic.Uint64
}

func (c *counters) reject(reason string) { c.rejected[reasonIndex(reason)].Add(1) }

// observeWait records a wait for the running maximum.
func (c *counters) observeWait(d time.Duration) {
	for {
		m := c.maxWait.Load()
		if int64(d) <= m || c.maxWait.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// service is the service proper: pods, their queues, the balancer, the
// defences at the door. The gateway and the HTTP handlers sit in front.
type service struct {
	cfg    Config
	params queueParams
	ctx    context.Context // the server's lifetime
	wg     *sync.WaitGroup
	now    func() time.Time
	c      *counters
	wait   prometheus.Histogram // specimen_queue_wait_seconds

	queued    atomic.Int64 // items in every queue, the waiting room included
	inService atomic.Int64 // items being served
	active    atomic.Int64 // active slots in use (Limit)
	shared    *queue       // Shared mode: the one queue
	waitroom  *queue       // Limit with LimitQueue > 0: requests waiting for a slot
	roomN     atomic.Int64 // items in waitroom, reserved before push

	mu      sync.Mutex // guards pending, ready, nextID
	pending []*pod     // ordered, not ready yet (dead time)
	ready   []*pod     // serving
	nextID  int

	readyList  atomic.Pointer[[]*pod] // snapshot of ready for the balancer
	readyCount atomic.Int64
	// rateFactor is the pods' rate as a share of PodRate, as float64 bits
	// (SetCapacityFactor; 1 at start): a fault that slows every pod.
	rateFactor atomic.Uint64
	desired    atomic.Int64
	rr         atomic.Uint64
}

func newService(ctx context.Context, wg *sync.WaitGroup, cfg Config, c *counters, wait prometheus.Histogram) *service {
	s := &service{
		cfg: cfg,
		params: queueParams{
			discipline:    cfg.Discipline,
			codel:         cfg.CoDel,
			codelTarget:   cfg.CoDelTarget,
			codelInterval: cfg.CoDelInterval,
			deadlines:     cfg.DeadlinePropagation || cfg.GRPCHonourDeadlines,
		},
		ctx: ctx, wg: wg, now: time.Now, c: c, wait: wait,
	}
	now := s.now()
	if cfg.QueueMode == vocab.QueueShared {
		s.shared = newQueue(s.params, now, &s.queued)
	}
	if cfg.Limit > 0 && cfg.LimitQueue > 0 {
		s.waitroom = newQueue(queueParams{discipline: vocab.FIFO}, now, &s.queued)
	}
	empty := []*pod{}
	s.readyList.Store(&empty)
	for range cfg.Pods {
		s.orderPod(0)
	}
	return s
}

// capacity is C(t) = c·(ready pods), requests per second.
func (s *service) capacity() float64 {
	return s.cfg.PodRate * s.factor() * float64(s.readyCount.Load())
}

// factor is the pods' rate as a share of PodRate (1 unless a fault set it).
func (s *service) factor() float64 {
	if b := s.rateFactor.Load(); b != 0 {
		return math.Float64frombits(b)
	}
	return 1
}

// waitEstimate is w(t) = backlog / C(t) in seconds (docs/model.md,
// "Symbols"): the wait of a new FIFO arrival. +Inf with work and no capacity.
func (s *service) waitEstimate() float64 {
	b := float64(s.queued.Load() + s.inService.Load())
	c := s.capacity()
	if b == 0 {
		return 0
	}
	if c == 0 {
		return math.Inf(1)
	}
	return b / c
}

// pick returns the queue of a new item: the shared one, or a ready pod's.
func (s *service) pick() *queue {
	if s.shared != nil {
		return s.shared
	}
	pods := *s.readyList.Load()
	switch len(pods) {
	case 0:
		return nil
	case 1:
		return pods[0].q
	}
	if s.cfg.Balancer == LeastLoaded {
		best := pods[0].q
		bl := best.backlog()
		for _, p := range pods[1:] {
			if b := p.q.backlog(); b < bl {
				best, bl = p.q, b
			}
		}
		return best
	}
	return pods[s.rr.Add(1)%uint64(len(pods))].q
}

// submit lets it in at the door, or refuses it. It returns the refusal, or
// nil when the item is queued and its result will come on it.done.
func (s *service) submit(it *item) *result {
	s.c.ingress[it.kind].Add(1)
	now := s.now()
	// An item carries a deadline only when the listener it came from
	// honours deadlines (DeadlinePropagation, GRPCHonourDeadlines).
	if s.params.deadlines && !it.deadline.IsZero() && !now.Before(it.deadline) {
		return s.refuse(reasonDeadline, 503)
	}
	q := s.pick()
	if q == nil {
		return s.refuse(reasonQueueFull, 503) // no pod at all: nowhere to wait
	}
	if b := s.cfg.AdmissionBound; b > 0 {
		// The admission bound (docs/model.md, "Autoscalers, ceilings and
		// admission"): admit only if the queue then holds at most
		// b·C(t) of work, C(t) being the rate of the pods behind this queue.
		if float64(q.backlog()+1) > b.Seconds()*q.rate.Load() {
			return s.refuse(reasonAdmission, 503)
		}
	}
	if s.cfg.Limit > 0 {
		if s.active.Add(1) > int64(s.cfg.Limit) {
			s.active.Add(-1)
			return s.toWaitroom(it, now)
		}
		it.slot = true
	}
	if s.queued.Add(1) > int64(s.cfg.MaxQueue) {
		s.queued.Add(-1)
		s.releaseSlot(it)
		return s.refuse(reasonQueueFull, 503)
	}
	s.place(it, q, now)
	return nil
}

// place pushes an item already counted in queued onto q, or onto another
// pod's queue when q was closed by a retiring pod meanwhile.
func (s *service) place(it *item, q *queue, now time.Time) {
	for q != nil && !q.push(it, now) {
		q = s.pick()
	}
	if q == nil { // no pod left: refuse rather than strand it
		s.queued.Add(-1)
		s.dropItem(it, reasonQueueFull)
	}
}

// toWaitroom parks it until an active slot frees, or refuses it.
func (s *service) toWaitroom(it *item, now time.Time) *result {
	if s.waitroom == nil {
		return s.refuse(reasonLimit, s.cfg.LimitStatus)
	}
	if s.roomN.Add(1) > int64(s.cfg.LimitQueue) {
		s.roomN.Add(-1)
		return s.refuse(reasonLimit, s.cfg.LimitStatus)
	}
	if s.queued.Add(1) > int64(s.cfg.MaxQueue) {
		s.queued.Add(-1)
		s.roomN.Add(-1)
		return s.refuse(reasonQueueFull, 503)
	}
	s.waitroom.push(it, now)
	s.refill() // a slot may have freed between the check and the push
	return nil
}

// refill moves waiting items onto pod queues while slots are free.
func (s *service) refill() {
	if s.waitroom == nil {
		return
	}
	for s.waitroom.length.Load() > 0 {
		if s.active.Add(1) > int64(s.cfg.Limit) {
			s.active.Add(-1)
			return
		}
		now := s.now()
		it := s.waitroom.popFront(now)
		if it == nil {
			s.active.Add(-1)
			return
		}
		s.roomN.Add(-1)
		it.slot = true
		s.queued.Add(1) // popFront lowered it; the item is still waiting
		s.place(it, s.pick(), now)
	}
}

// releaseSlot frees the active slot it holds, if any, and hands it on.
func (s *service) releaseSlot(it *item) {
	if !it.slot {
		return
	}
	it.slot = false
	s.active.Add(-1)
	s.refill()
}

// refuse counts a refusal at the door and returns it.
func (s *service) refuse(reason string, status int) *result {
	s.c.reject(reason)
	return &result{status: status, reason: reason}
}

// dropItem refuses an item that was inside the service: no service time.
func (s *service) dropItem(it *item, reason string) {
	s.c.reject(reason)
	s.releaseSlot(it)
	it.finish(result{status: 503, reason: reason})
}

// clientGone records that the client of it gave up (its connection closed,
// or the gateway's try timed out). System A leaves the item queued: it will
// be served and counted abandoned. With CancelOnDisconnect it is removed from
// its queue, or its pod stops serving it.
func (s *service) clientGone(it *item) {
	if !it.state.CompareAndSwap(stateWaiting, stateGone) {
		return
	}
	if it.gone == nil {
		return
	}
	if q := it.at.Load(); q != nil && q.remove(it, s.now()) {
		if q == s.waitroom {
			s.roomN.Add(-1)
		}
		s.c.reject(reasonDisconnect)
		s.releaseSlot(it)
	}
	close(it.gone) // the pod serving it, if any, counts the disconnect
}

// Pod management. Desired = pending + ready; the autoscaler changes it.

// orderPod orders one pod that becomes ready after deadTime.
func (s *service) orderPod(deadTime time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.ctx)
	p := &pod{
		id: s.nextID, svc: s, ctx: ctx, cancel: cancel,
		retire: make(chan struct{}),
		rng:    newPodRand(s.cfg.Seed, s.nextID),
	}
	s.nextID++
	if s.shared != nil {
		p.q = s.shared
	} else {
		p.q = newQueue(s.params, s.now(), &s.queued)
		p.q.rate.Store(s.cfg.PodRate)
	}
	s.pending = append(s.pending, p)
	s.desired.Store(int64(len(s.pending) + len(s.ready)))
	if deadTime <= 0 {
		s.readyLocked(p)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		p.run(deadTime)
	}()
}

// markReady moves p from pending to ready, unless it was cancelled.
func (s *service) markReady(p *pod) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ctx.Err() != nil {
		return false
	}
	s.readyLocked(p)
	return true
}

func (s *service) readyLocked(p *pod) {
	for i, q := range s.pending {
		if q == p {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	s.ready = append(s.ready, p)
	s.publishLocked()
}

// publishLocked refreshes what the load path reads without the lock.
func (s *service) publishLocked() {
	list := append([]*pod(nil), s.ready...)
	s.readyList.Store(&list)
	s.readyCount.Store(int64(len(s.ready)))
	s.desired.Store(int64(len(s.pending) + len(s.ready)))
	if s.shared != nil {
		s.shared.rate.Store(s.cfg.PodRate * float64(len(s.ready)))
	}
}

// retireOne lowers desired by one: a pending pod is cancelled first (the
// newest); else the newest ready pod stops taking work, finishes its queue
// and exits. The last ready pod is never retired.
func (s *service) retireOne() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.pending); n > 0 {
		p := s.pending[n-1]
		s.pending = s.pending[:n-1]
		p.cancel()
		s.publishLocked()
		return true
	}
	n := len(s.ready)
	if n <= 1 {
		return false
	}
	p := s.ready[n-1]
	s.ready = s.ready[:n-1]
	s.publishLocked()
	close(p.retire)
	return true
}

// scaleTo orders or retires pods until desired is n.
func (s *service) scaleTo(n int, deadTime time.Duration) {
	for d := int(s.desired.Load()); d < n; d++ {
		s.orderPod(deadTime)
	}
	for d := int(s.desired.Load()); d > n; d-- {
		if !s.retireOne() {
			return
		}
	}
}
