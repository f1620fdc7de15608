package specimen

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Item states: who got to an item first decides how it is counted.
const (
	stateWaiting int32 = iota // queued or in service, client still there
	stateDone                 // answered or refused; the handler got a result
	stateGone                 // the client (or the gateway's try) gave up
)

// result is what a handler gets back for an item.
type result struct {
	status int    // HTTP status: 200 answered, else a refusal
	reason string // refusal reason (a specimen_rejected_total label)
}

// item is one attempt inside the service: in a queue, in service, or
// finished. Its links make removal from the middle of a queue O(1).
type item struct {
	prev, next *item
	at         atomic.Pointer[queue] // the queue holding it; nil when not queued

	kind         Kind
	enq          time.Time     // when it entered its current queue (monotonic)
	arrived      time.Time     // when it reached the service
	deadline     time.Time     // zero: none (X-Deadline-Ms or the gateway's try)
	codelTimeout time.Duration // CoDel: longest wait allowed, set at enqueue
	slot         bool          // holds an active slot of the limit
	// cost is the request's service time in units of 1/c (a "/work?cost="
	// request's; 1 by default).
	cost float64

	state atomic.Int32
	done  chan result   // buffered 1: the single result for the handler
	gone  chan struct{} // closed when the client goes (CancelOnDisconnect only)
}

func newItem(kind Kind, now time.Time, cancelable bool) *item {
	it := &item{kind: kind, arrived: now, done: make(chan result, 1), cost: 1}
	if cancelable {
		it.gone = make(chan struct{})
	}
	return it
}

// finish hands res to the waiting handler unless the client has gone.
// It reports whether the client was still there.
func (it *item) finish(res result) bool {
	if !it.state.CompareAndSwap(stateWaiting, stateDone) {
		return false
	}
	it.done <- res
	return true
}

// queueParams is what a queue needs from the Config.
type queueParams struct {
	discipline    vocab.Discipline
	codel         bool
	codelTarget   time.Duration
	codelInterval time.Duration
	deadlines     bool // drop items whose deadline has passed (deadline propagation)
}

// drop is an item a queue refused at pop time, with its reason.
type drop struct {
	it     *item
	reason string
}

// queue is a bounded-by-its-owner doubly linked list of items in arrival
// order (front = oldest). Pop takes from the front (FIFO) or the back (LIFO,
// or adaptive LIFO under a standing queue). All methods take now so tests
// drive them with explicit times.
type queue struct {
	p queueParams

	mu        sync.Mutex
	head      *item
	tail      *item
	n         int
	lastEmpty time.Time // last time the queue was seen empty (CoDel, adaptive LIFO)

	closed bool // a retired pod's queue takes no more items

	length atomic.Int64  // n, readable without the lock
	busy   atomic.Int64  // pods serving an item taken from this queue
	rate   atomicFloat   // requests/s of the pods behind this queue
	total  *atomic.Int64 // the service's count of queued items: unlink decrements it
	signal chan struct{} // capacity 1: "there may be work"
}

// newQueue returns an empty queue; total is the service-wide count of queued
// items, which callers raise before push and unlink lowers.
func newQueue(p queueParams, now time.Time, total *atomic.Int64) *queue {
	return &queue{p: p, lastEmpty: now, total: total, signal: make(chan struct{}, 1)}
}

// wake signals one waiting pod without blocking.
func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// standing reports a standing queue: not empty for longer than the CoDel
// interval. Caller holds q.mu.
func (q *queue) standing(now time.Time) bool {
	return q.n > 0 && now.Sub(q.lastEmpty) > q.p.codelInterval
}

// push appends it at the back and reports whether it could: a closed queue
// takes nothing. The caller has checked every bound and raised total.
func (q *queue) push(it *item, now time.Time) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	if q.n == 0 {
		q.lastEmpty = now
	}
	it.enq = now
	if q.p.codel {
		// Facebook's CoDel variant: a short timeout under a standing
		// queue, a long one otherwise.
		it.codelTimeout = q.p.codelInterval
		if q.standing(now) {
			it.codelTimeout = q.p.codelTarget
		}
	}
	it.at.Store(q)
	it.prev, it.next = q.tail, nil
	if q.tail != nil {
		q.tail.next = it
	} else {
		q.head = it
	}
	q.tail = it
	q.n++
	q.length.Store(int64(q.n))
	q.mu.Unlock()
	q.wake()
	return true
}

// unlink removes it; caller holds q.mu and it.at is q.
func (q *queue) unlink(it *item, now time.Time) {
	if it.prev != nil {
		it.prev.next = it.next
	} else {
		q.head = it.next
	}
	if it.next != nil {
		it.next.prev = it.prev
	} else {
		q.tail = it.prev
	}
	it.prev, it.next = nil, nil
	it.at.Store(nil)
	q.n--
	q.length.Store(int64(q.n))
	if q.total != nil {
		q.total.Add(-1)
	}
	if q.n == 0 {
		q.lastEmpty = now
	}
}

// remove takes it out of q if it is still there and reports whether it was.
func (q *queue) remove(it *item, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if it.at.Load() != q {
		return false
	}
	q.unlink(it, now)
	return true
}

// expired reports why it must not be served at now, or "".
func (q *queue) expired(it *item, now time.Time) string {
	if q.p.deadlines && !it.deadline.IsZero() && now.After(it.deadline) {
		return reasonDeadline
	}
	if q.p.codel && now.Sub(it.enq) > it.codelTimeout {
		return reasonCoDel
	}
	return ""
}

// pop takes the next item to serve, or nil when the queue is empty. Items it
// refuses on the way (deadline passed, CoDel) are appended to drops for the
// caller to answer outside the lock; an item is never both returned and
// dropped. When it is not nil, the caller counts itself busy on q.
func (q *queue) pop(now time.Time, drops []drop) (*item, []drop) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Old requests sit at the front whatever the discipline: shed them first
	// so that LIFO does not leave them to rot.
	if q.p.codel || q.p.deadlines {
		for q.head != nil {
			r := q.expired(q.head, now)
			if r == "" {
				break
			}
			it := q.head
			q.unlink(it, now)
			drops = append(drops, drop{it, r})
		}
	}
	for q.n > 0 {
		it := q.head
		switch q.p.discipline {
		case vocab.LIFO:
			it = q.tail
		case vocab.AdaptiveLIFO:
			if q.standing(now) {
				it = q.tail
			}
		}
		if r := q.expired(it, now); r != "" {
			q.unlink(it, now)
			drops = append(drops, drop{it, r})
			continue
		}
		q.busy.Add(1) // before unlink: backlog() never misses it
		q.unlink(it, now)
		if q.n > 0 {
			q.wake() // let another pod of a shared queue take the next one
		}
		return it, drops
	}
	return nil, drops
}

// popFront takes the oldest item whatever the discipline (the limit's
// waiting room hands slots out in arrival order).
func (q *queue) popFront(now time.Time) *item {
	q.mu.Lock()
	defer q.mu.Unlock()
	it := q.head
	if it != nil {
		q.unlink(it, now)
	}
	return it
}

// backlog is the work waiting at or in service from q, in requests.
func (q *queue) backlog() int64 { return q.length.Load() + q.busy.Load() }

// closeIfEmpty closes q if it is empty and reports whether it did; a pod
// that retires closes its own queue so that no item is stranded in it.
func (q *queue) closeIfEmpty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		q.closed = true
	}
	return q.closed
}
