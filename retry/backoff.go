package retry

import (
	"math/rand/v2"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Backoff is the delay before a retry. Backoff and jitter delay retries
// without removing any: they do not change the amplification A
// (docs/model.md, "Retry debt and amplification").
type Backoff struct {
	Kind   vocab.BackoffKind
	Base   time.Duration // constant delay, or the first exponential delay
	Max    time.Duration // cap on the delay (exponential and decorrelated); 0 = vocab.DefaultBackoffMax (10 s)
	Jitter vocab.Jitter
}

// cap returns the delay cap: Max, or vocab.DefaultBackoffMax when Max is 0.
func (b Backoff) cap() time.Duration {
	if b.Max > 0 {
		return b.Max
	}
	return vocab.DefaultBackoffMax
}

// Nominal returns the delay before retry n (1 = the first retry) before
// jitter: 0, Base, or Base·2^(n−1) capped at Max (vocab.DefaultBackoffMax when
// Max is 0).
func (b Backoff) Nominal(n int) time.Duration {
	switch b.Kind {
	case vocab.BackoffConstant:
		return b.Base
	case vocab.BackoffExponential:
		c := b.cap()
		d := b.Base
		for i := 1; i < n && d < c; i++ {
			if d > c/2 {
				return c
			}
			d *= 2
		}
		return min(d, c)
	}
	return 0
}

// Bounds returns the interval [lo, hi] that Delay draws from for retry n
// (1 = first) after a previous delay prev.
func (b Backoff) Bounds(n int, prev time.Duration) (lo, hi time.Duration) {
	if b.Kind == vocab.BackoffNone {
		return 0, 0
	}
	d := b.Nominal(n)
	switch b.Jitter {
	case vocab.JitterFull:
		return 0, d
	case vocab.JitterEqual:
		return d / 2, d
	case vocab.JitterDecorrelated:
		if prev < b.Base {
			prev = b.Base
		}
		lo, hi = b.Base, b.cap()
		if prev <= hi/3 { // 3·prev ≤ hi, without overflow
			hi = 3 * prev
		}
		if lo > hi {
			lo = hi
		}
		return lo, hi
	}
	return d, d
}

// Delay draws the delay before retry n (1 = first) after a previous delay
// prev, uniformly within Bounds. rng may be nil only for JitterNone.
func (b Backoff) Delay(n int, prev time.Duration, rng *rand.Rand) time.Duration {
	lo, hi := b.Bounds(n, prev)
	if hi <= lo || b.Jitter == vocab.JitterNone {
		return hi
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}
