package convert

import (
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// meanBackoffs returns the mean delay, in seconds, before each retry of the
// policy: the middle of the jitter bounds, the previous mean standing in
// for the previous delay (decorrelated jitter). Empty when there is none.
func meanBackoffs(p retry.Policy) []float64 {
	if p.Backoff.Kind == vocab.BackoffNone || p.MaxRetries == 0 {
		return nil
	}
	out := make([]float64, p.MaxRetries)
	prev := time.Duration(0)
	for n := 1; n <= p.MaxRetries; n++ {
		lo, hi := p.Backoff.Bounds(n, prev)
		prev = (lo + hi) / 2
		out[n-1] = prev.Seconds()
	}
	return out
}
