package convert

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// simRetry makes retry.Retrier the request-level model's retry
// decider, so the model applies the very caps, budgets, token buckets,
// backoff and jitter the driver applies. Seconds become durations on the
// way in and out; a refusal at the door is the 503 the specimen answers.
//
// timedOut is what an attempt the model times out is to the client: a
// timeout, or the 5xx of a layer that gave up first (the client layer's
// Sees, analysis.SetFailedStateOutcomes).
type simRetry struct {
	r        *retry.Retrier
	timedOut vocab.Outcome
}

var _ request.RetryDecider = simRetry{}

// seconds converts model time to a Duration, saturating beyond what a
// Duration holds (a model run far past any horizon) instead of overflowing
// into a negative time.
func seconds(s float64) time.Duration {
	switch {
	case math.IsNaN(s):
		return 0
	case s >= analysis.MaxDurationS:
		return time.Duration(math.MaxInt64)
	case s <= -analysis.MaxDurationS:
		return time.Duration(math.MinInt64)
	}
	return time.Duration(s * float64(time.Second))
}

func (s simRetry) FirstAttempt(nowS float64) { s.r.FirstAttempt(seconds(nowS)) }
func (s simRetry) Succeeded(nowS float64)    { s.r.Succeeded(seconds(nowS)) }

func (s simRetry) Failed(nowS float64, f request.RetryFailure) (bool, float64) {
	outcome := s.timedOut
	if f.Kind == request.FailureRefused {
		outcome = vocab.Outcome503
	}
	d := s.r.Failed(seconds(nowS), retry.Failure{
		Attempt:   f.Attempt,
		Outcome:   outcome,
		Started:   seconds(f.StartedS),
		PrevDelay: seconds(f.PrevDelayS),
	})
	return d.Retry, d.Delay.Seconds()
}

// SimRetry is the retry model of a loadgen policy for the request-level
// model: each run gets a fresh Retrier (its own budget window and token
// bucket) whose jitter is drawn from a source seeded by the run's seed.
func SimRetry(p retry.Policy) request.RetryModel { return simRetryModel(p, vocab.OutcomeTimeout) }

// simRetryModel is SimRetry for clients that see a timed-out attempt as
// timedOut.
func simRetryModel(p retry.Policy, timedOut vocab.Outcome) request.RetryModel {
	maxDelay := time.Duration(0)
	prev := time.Duration(0)
	for n := 1; n <= min(p.MaxRetries, 64); n++ {
		_, hi := p.Backoff.Bounds(n, prev)
		maxDelay, prev = max(maxDelay, hi), hi
	}
	return request.RetryModel{
		New: func(seed uint64) request.RetryDecider {
			return simRetry{retry.NewRetrier(p, rand.New(rand.NewPCG(seed, 0x6a69747465722121))), timedOut}
		},
		MaxRetries: p.MaxRetries,
		MaxDelayS:  maxDelay.Seconds(),
	}
}
