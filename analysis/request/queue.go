package request

import (
	"math"
	"math/rand/v2"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// station is what the timeline and the judge read of the service: the
// wait at t, seconds, and the time from which nothing is served. servers
// (a queue law) and sharing (the concurrency law) implement it.
type station interface {
	wait(t float64) float64
	idleFrom() float64
}

// servers holds the time each server of the request model becomes free,
// grouped into queues: one queue of every server (shared) or one per pod.
// Each queue's free times form a binary min-heap, so a FIFO arrival's start
// is the Lindley recursion max(arrival, earliest free time), computed at
// arrival: with abandoned work served, nothing that comes later changes it.
type servers struct {
	free    []float64 // queue q's heap is free[q*k : (q+1)*k]
	k       int       // servers per queue
	queues  int
	next    int     // round-robin position
	maxFree float64 // the latest free time of any server: all idle from then on
}

func newServers(queues, perQueue int) *servers {
	return &servers{free: make([]float64, queues*perQueue), k: perQueue, queues: queues}
}

// pick returns the queue the next job joins (round robin over the pods).
func (s *servers) pick() int {
	if s.queues == 1 {
		return 0
	}
	q := s.next
	s.next++
	if s.next == s.queues {
		s.next = 0
	}
	return q
}

// earliest is the time the first server of queue q becomes free.
func (s *servers) earliest(q int) float64 { return s.free[q*s.k] }

// occupy gives the earliest server of queue q work until done.
func (s *servers) occupy(q int, done float64) {
	if done > s.maxFree {
		s.maxFree = done
	}
	if s.k == 1 {
		s.free[q] = done
		return
	}
	h := s.free[q*s.k : (q+1)*s.k]
	h[0] = done
	siftDown(h)
}

// siftDown restores the binary min-heap h after its top was raised (or
// replaced by its last element).
func siftDown(h []float64) {
	i, n := 0, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[m] >= h[i] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// backlog is the work queue q holds at time t, in seconds of its capacity:
// the servers' remaining busy time over their number.
func (s *servers) backlog(q int, t float64) float64 {
	w := 0.0
	for _, f := range s.free[q*s.k : (q+1)*s.k] {
		if f > t {
			w += f - t
		}
	}
	return w / float64(s.k)
}

// idleFrom is the time from which every server is idle.
func (s *servers) idleFrom() float64 { return s.maxFree }

// wait is w(t) of the whole service: every server's remaining busy time
// over the number of servers (docs/model.md, "Symbols": backlog / C).
func (s *servers) wait(t float64) float64 {
	w := 0.0
	for _, f := range s.free {
		if f > t {
			w += f - t
		}
	}
	return w / float64(len(s.free))
}

// pending is an attempt waiting for its timeout to fire or for its retry
// to be sent.
type pending struct {
	at        float64 // when: the timeout fires, or the retry arrives
	started   float64 // when its logical request started
	prevDelay float64 // the backoff before this attempt
	attempt   int32   // attempt number (1 = first)
}

// timeoutRing is the attempts whose timeouts have yet to fire. Arrivals are
// handled in time order and share one timeout, so their timeouts fire in
// the same order: a FIFO ring is enough.
type timeoutRing struct {
	buf        []pending
	head, size int
}

func (r *timeoutRing) push(p pending) {
	if r.size == len(r.buf) {
		grown := make([]pending, max(1024, 2*len(r.buf)))
		n := copy(grown, r.buf[r.head:])
		copy(grown[n:], r.buf[:r.head])
		r.buf, r.head = grown, 0
	}
	i := r.head + r.size
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = p
	r.size++
}

func (r *timeoutRing) peek() float64 {
	if r.size == 0 {
		return math.Inf(1)
	}
	return r.buf[r.head].at
}

func (r *timeoutRing) pop() pending {
	p := r.buf[r.head]
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.size--
	return p
}

// retryHeap is the retries waiting out their backoff: a 4-ary min-heap on
// the time they arrive (jitter makes their order arbitrary).
type retryHeap struct{ h []pending }

func (q *retryHeap) peek() float64 {
	if len(q.h) == 0 {
		return math.Inf(1)
	}
	return q.h[0].at
}

func (q *retryHeap) push(p pending) {
	q.h = append(q.h, p)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if h[parent].at <= p.at {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = p
}

func (q *retryHeap) pop() pending {
	h := q.h
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	q.h = h
	n := len(h)
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if h[j].at < h[m].at {
				m = j
			}
		}
		if h[m].at >= last.at {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}

// arrivalGen yields first-attempt times of the piecewise-constant demand by
// inverting the cumulative rate Λ(t): uniform arrivals at Λ = n − 1,
// Poisson arrivals at Λ = S_n, a sum of n unit exponentials (the
// time-change construction loadgen's schedule uses too). Inverting from the
// stage's start keeps rounding error from accumulating.
type arrivalGen struct {
	stages  []analysis.DemandStage
	poisson bool
	rng     *rand.Rand
	idx     int
	start   float64 // time stage idx starts
	base    float64 // Λ at the start of stage idx
	target  float64 // Λ of the next arrival
}

func newArrivalGen(stages []analysis.DemandStage, a vocab.Arrivals, rng *rand.Rand) *arrivalGen {
	g := &arrivalGen{stages: stages, poisson: a == vocab.Poisson, rng: rng}
	if g.poisson {
		g.target = rng.ExpFloat64()
	}
	return g
}

// next returns the next arrival time, +Inf after the last stage.
func (g *arrivalGen) next() float64 {
	for g.idx < len(g.stages) {
		st := g.stages[g.idx]
		if st.RatePerS > 0 {
			if t := g.start + (g.target-g.base)/st.RatePerS; t < g.start+st.DurationS {
				if g.poisson {
					g.target += g.rng.ExpFloat64()
				} else {
					g.target++
				}
				return t
			}
		}
		g.base += st.RatePerS * st.DurationS
		g.start += st.DurationS
		g.idx++
	}
	return math.Inf(1)
}

// serviceSampler draws service times, seconds.
type serviceSampler struct {
	kind      vocab.ServiceTime
	mean      float64
	mu, sigma float64 // lognormal parameters of log S
	rng       *rand.Rand
}

func newServiceSampler(kind vocab.ServiceTime, mean, cv float64, rng *rand.Rand) serviceSampler {
	s := serviceSampler{kind: kind, mean: mean, rng: rng}
	if kind == vocab.ServiceLognormal {
		// E[S] = exp(μ + σ²/2), CV² = exp(σ²) − 1.
		s.sigma = math.Sqrt(math.Log1p(cv * cv))
		s.mu = math.Log(mean) - s.sigma*s.sigma/2
	}
	return s
}

func (s *serviceSampler) draw() float64 {
	switch s.kind {
	case vocab.ServiceExponential:
		return s.mean * s.rng.ExpFloat64()
	case vocab.ServiceLognormal:
		return math.Exp(s.mu + s.sigma*s.rng.NormFloat64())
	}
	return s.mean
}
