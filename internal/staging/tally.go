package staging

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
)

// DefaultTallyMax is the default cap on a Tally's readings: 100,000 of
// 32 bytes (3.2 MB), 2 h 46 min at one reading per 100 ms.
const DefaultTallyMax = 100_000

// TallyConfig configures StartTally.
type TallyConfig struct {
	// Read returns the counter now (any unit, non-decreasing for Between
	// to mean an increase). It is called from the Tally's goroutine and
	// from Sample, under a lock: it must be cheap and safe for concurrent
	// use, like specimen Stats or an atomic load.
	Read func() float64
	// Period is the time between readings; required, > 0.
	Period time.Duration
	// Max caps the readings kept; 0 = DefaultTallyMax. Once it is reached
	// the Tally stops reading (nothing is dropped) and Full reports true:
	// Between then answers NaN past the last reading.
	Max int
}

// Reading is one value of a Tally's counter.
type Reading struct {
	// At is when it was read (with the monotonic clock).
	At time.Time
	// Value is what Read returned.
	Value float64
}

// Tally keeps the truth of a counter over a run: it reads it once at
// start, then every Period in a goroutine that ends with Stop or the
// context, and answers how much it grew between two instants by linear
// interpolation between readings.
type Tally struct {
	read   func() float64
	max    int
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	readings []Reading // in time order
}

// StartTally takes a first reading now and starts the reading goroutine.
func StartTally(ctx context.Context, cfg TallyConfig) (*Tally, error) {
	if cfg.Read == nil {
		return nil, fmt.Errorf("staging: tally: Read is nil")
	}
	if cfg.Period <= 0 {
		return nil, fmt.Errorf("staging: tally: Period %s: want > 0", cfg.Period)
	}
	if cfg.Max == 0 {
		cfg.Max = DefaultTallyMax
	}
	if cfg.Max < 2 {
		return nil, fmt.Errorf("staging: tally: Max %d: want at least 2", cfg.Max)
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &Tally{read: cfg.Read, max: cfg.Max, cancel: cancel, done: make(chan struct{})}
	t.Sample()
	go func() {
		defer close(t.done)
		tick := time.NewTicker(cfg.Period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if !t.Sample() {
					return
				}
			}
		}
	}()
	return t, nil
}

// Sample takes a reading now, besides the periodic ones: call it at the
// edges of a window to bracket it exactly. It returns false, reading
// nothing, once the Tally is full.
func (t *Tally) Sample() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.readings) >= t.max {
		return false
	}
	t.readings = append(t.readings, Reading{At: time.Now(), Value: t.read()})
	return true
}

// Stop ends the reading goroutine and waits for it. The readings stay
// available; Sample still works. Idempotent.
func (t *Tally) Stop() {
	t.cancel()
	<-t.done
}

// Full reports whether the cap on readings was reached.
func (t *Tally) Full() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.readings) >= t.max
}

// Readings returns a copy of the readings so far, in time order.
func (t *Tally) Readings() []Reading {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Reading(nil), t.readings...)
}

// ValueAt returns the counter at instant at, interpolated linearly between
// the readings around it; NaN before the first or after the last reading.
func (t *Tally) ValueAt(at time.Time) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return valueAt(t.readings, at)
}

// Between returns the counter's increase from t1 to t2 (negative when t2
// is before t1), or NaN when either instant is outside the readings.
func (t *Tally) Between(t1, t2 time.Time) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return valueAt(t.readings, t2) - valueAt(t.readings, t1)
}

// valueAt interpolates rs (in time order) at at.
func valueAt(rs []Reading, at time.Time) float64 {
	if len(rs) == 0 || at.Before(rs[0].At) || at.After(rs[len(rs)-1].At) {
		return math.NaN()
	}
	// i: the first reading at or after at; rs[i-1] is before it.
	i := sort.Search(len(rs), func(i int) bool { return !rs[i].At.Before(at) })
	if rs[i].At.Equal(at) || i == 0 {
		return rs[i].Value
	}
	a, b := rs[i-1], rs[i]
	f := float64(at.Sub(a.At)) / float64(b.At.Sub(a.At))
	return a.Value + f*(b.Value-a.Value)
}
