package specimen

import (
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/vocab"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// pushN pushes n items at the given times (ms) and returns them.
func pushN(q *queue, total *atomic.Int64, ms ...int) []*item {
	var out []*item
	for _, m := range ms {
		it := newItem(KindFirst, at(m), false)
		total.Add(1)
		q.push(it, at(m))
		out = append(out, it)
	}
	return out
}

func TestQueueDisciplines(t *testing.T) {
	cases := []struct {
		name  string
		p     queueParams
		push  []int // ms of each push
		popAt int   // ms of the pops
		want  []int // indexes of the items in pop order
	}{
		// FIFO hands out the oldest first.
		{"fifo", queueParams{discipline: vocab.FIFO}, []int{0, 1, 2}, 3, []int{0, 1, 2}},
		// LIFO hands out the newest first.
		{"lifo", queueParams{discipline: vocab.LIFO}, []int{0, 1, 2}, 3, []int{2, 1, 0}},
		// Adaptive LIFO stays FIFO while the queue is young (not standing).
		{"adaptive young", queueParams{discipline: vocab.AdaptiveLIFO, codelInterval: 100 * time.Millisecond}, []int{0, 1, 2}, 50, []int{0, 1, 2}},
		// Adaptive LIFO turns LIFO once the queue has stood for an interval;
		// the last pop empties it, so order is newest first throughout.
		{"adaptive standing", queueParams{discipline: vocab.AdaptiveLIFO, codelInterval: 100 * time.Millisecond}, []int{0, 1, 2}, 150, []int{2, 1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var total atomic.Int64
			q := newQueue(tc.p, at(0), &total)
			items := pushN(q, &total, tc.push...)
			for i, w := range tc.want {
				it, drops := q.pop(at(tc.popAt), nil)
				if len(drops) > 0 || it != items[w] {
					t.Fatalf("pop %d: got %p (drops %d), want item %d", i, it, len(drops), w)
				}
			}
			if it, _ := q.pop(at(tc.popAt), nil); it != nil {
				t.Fatal("queue not empty after popping everything")
			}
			if total.Load() != 0 || q.length.Load() != 0 || q.busy.Load() != int64(len(tc.want)) {
				t.Fatalf("total %d length %d busy %d", total.Load(), q.length.Load(), q.busy.Load())
			}
		})
	}
}

func TestQueueCoDelAndDeadlines(t *testing.T) {
	var total atomic.Int64
	p := queueParams{discipline: vocab.FIFO, codel: true, codelTarget: 5 * time.Millisecond, codelInterval: 100 * time.Millisecond, deadlines: true}
	q := newQueue(p, at(0), &total)
	// Item 0 arrives at an empty queue: timeout = interval (100 ms).
	// Item 1 arrives at 150 ms into a queue standing since 0: timeout = target (5 ms).
	items := pushN(q, &total, 0, 150)
	if items[0].codelTimeout != 100*time.Millisecond || items[1].codelTimeout != 5*time.Millisecond {
		t.Fatalf("codel timeouts %v %v", items[0].codelTimeout, items[1].codelTimeout)
	}
	// At 160 ms both have waited past their timeouts: both dropped, none served.
	it, drops := q.pop(at(160), nil)
	if it != nil || len(drops) != 2 || drops[0].reason != reasonCoDel || drops[1].reason != reasonCoDel {
		t.Fatalf("got item %v drops %+v", it, drops)
	}
	// A passed deadline drops an item before CoDel would.
	d := pushN(q, &total, 200)[0]
	d.deadline = at(201)
	live := pushN(q, &total, 200)[0]
	it, drops = q.pop(at(202), nil)
	if it != live || len(drops) != 1 || drops[0].it != d || drops[0].reason != reasonDeadline {
		t.Fatalf("got %v drops %+v", it, drops)
	}
	if total.Load() != 0 {
		t.Fatalf("total %d, want 0", total.Load())
	}
}

func TestQueueRemoveAndClose(t *testing.T) {
	var total atomic.Int64
	q := newQueue(queueParams{discipline: vocab.FIFO}, at(0), &total)
	items := pushN(q, &total, 0, 1, 2)
	if !q.remove(items[1], at(3)) || q.remove(items[1], at(3)) {
		t.Fatal("remove must succeed once")
	}
	if q.closeIfEmpty() {
		t.Fatal("closed a non-empty queue")
	}
	for _, w := range []*item{items[0], items[2]} {
		if it, _ := q.pop(at(4), nil); it != w {
			t.Fatalf("got %p want %p", it, w)
		}
	}
	if !q.closeIfEmpty() {
		t.Fatal("empty queue not closed")
	}
	if q.push(newItem(KindFirst, at(5), false), at(5)) {
		t.Fatal("closed queue took an item")
	}
}

// TestQueueModel checks the queue against a slice model under random
// pushes, pops and removals: same order, same lengths, total kept.
func TestQueueModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		disc := rapid.SampledFrom([]vocab.Discipline{vocab.FIFO, vocab.LIFO}).Draw(t, "discipline")
		var total atomic.Int64
		q := newQueue(queueParams{discipline: disc}, at(0), &total)
		var model []*item
		ms := 0
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			ms++
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				model = append(model, pushN(q, &total, ms)...)
			case 1:
				it, _ := q.pop(at(ms), nil)
				if len(model) == 0 {
					if it != nil {
						t.Fatal("pop from empty queue returned an item")
					}
					continue
				}
				i := 0
				if disc == vocab.LIFO {
					i = len(model) - 1
				}
				if it != model[i] {
					t.Fatalf("pop: wrong item")
				}
				model = append(model[:i], model[i+1:]...)
			case 2:
				if len(model) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(model)-1).Draw(t, "victim")
				if !q.remove(model[i], at(ms)) {
					t.Fatal("remove of a queued item failed")
				}
				model = append(model[:i], model[i+1:]...)
			}
			if q.length.Load() != int64(len(model)) || total.Load() != int64(len(model)) {
				t.Fatalf("length %d total %d model %d", q.length.Load(), total.Load(), len(model))
			}
		}
	})
}
