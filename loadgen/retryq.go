package loadgen

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// retryQueue holds logical requests waiting for their backoff, ordered by
// due time, at most limit of them (Config.MaxInFlight): one goroutine and one
// timer serve them all, so waiting retries cost a queue entry (~64 bytes)
// each, not a goroutine.
type retryQueue struct {
	mu     sync.Mutex
	items  retryHeap
	limit  int
	closed bool // set by drain: later pushes are refused
	wake   chan struct{}
}

type retryHeap []logical

func (h retryHeap) Len() int           { return len(h) }
func (h retryHeap) Less(i, j int) bool { return h[i].planned < h[j].planned }
func (h retryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *retryHeap) Push(x any)        { *h = append(*h, x.(logical)) }
func (h *retryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newRetryQueue(limit int) *retryQueue {
	return &retryQueue{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues lr until lr.planned; false when the queue is full or drained.
func (q *retryQueue) push(lr logical) bool {
	q.mu.Lock()
	if len(q.items) >= q.limit || q.closed {
		q.mu.Unlock()
		return false
	}
	first := len(q.items) == 0 || lr.planned < q.items[0].planned
	heap.Push(&q.items, lr)
	q.mu.Unlock()
	if first {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// len returns the number of queued retries.
func (q *retryQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// loop starts each queued retry when it is due, until stop is closed or ctx
// is done; then every retry still queued ends its logical request as failed.
func (q *retryQueue) loop(ctx context.Context, stop <-chan struct{}, d *Driver) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var due []logical
	for {
		now := d.now()
		q.mu.Lock()
		due = due[:0]
		for len(q.items) > 0 && q.items[0].planned <= now {
			due = append(due, heap.Pop(&q.items).(logical))
		}
		wait := time.Duration(-1)
		if len(q.items) > 0 {
			wait = q.items[0].planned - now
		}
		q.mu.Unlock()
		for _, lr := range due {
			d.startRetry(ctx, lr)
		}
		if len(due) > 0 {
			continue
		}
		var tc <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			tc = timer.C
		}
		select {
		case <-tc:
		case <-q.wake:
			timer.Stop()
		case <-ctx.Done():
			q.drain(d)
			return
		case <-stop:
			q.drain(d)
			return
		}
	}
}

// drain fails every queued retry.
func (q *retryQueue) drain(d *Driver) {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.closed = true
	q.mu.Unlock()
	for _, lr := range items {
		d.rec.failed(d.now(), lr.cohort, false)
		d.met.requests[1].Inc()
		d.end()
	}
}
