package retry

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Failure describes a failed attempt of a logical request.
type Failure struct {
	Attempt    int           // 1 = first attempt
	Outcome    vocab.Outcome // class of the failure
	RetryAfter time.Duration // from the response; 0 = none; negative (DontRetry): the server asked for no retry
	Started    time.Duration // when the logical request started (for Deadline)
	PrevDelay  time.Duration // the previous backoff delay (decorrelated jitter)
}

// Decision is a Retrier's answer to a failure.
type Decision struct {
	Retry bool          // send another attempt
	Delay time.Duration // wait this long before it
	// Reason is "retry" when Retry is set, otherwise why not: "class" (the
	// outcome is not retried), "pushback" (the server asked for no
	// retry: Failure.RetryAfter is DontRetry), "cap" (R reached), "budget", "tokens" or
	// "deadline" (the retry would start too late).
	Reason string
}

// Retrier holds the shared state of a Policy (budget window, token
// bucket, jitter source). Every method takes now, the time since the start of
// the run, so the same code serves the live driver and a simulator with a
// virtual clock. Safe for concurrent use. A now earlier than one seen before
// is treated as the latest seen.
//
// The budget is checked at every retry decision on the trailing window
// (now − W, now]: a retry is granted only if the retries granted in it,
// this one included, are at most β times the first attempts in it. Counts are
// kept in budgetBuckets buckets of W/budgetBuckets: retries are summed over
// every bucket that overlaps the window (an over-count) and first attempts
// over the buckets wholly inside it (an under-count), so bucketing can only
// refuse more, never grant a retry the exact rule would refuse. In a long
// failed state the granted ratio is about β·(1 − 1/budgetBuckets).
type Retrier struct {
	p Policy

	mu     sync.Mutex
	rng    *rand.Rand
	latest time.Duration
	// budget window ring: bucket k of absolute bucket number b is at b mod len.
	width   time.Duration
	cur     int64
	firsts  [budgetBuckets + 1]float64
	retries [budgetBuckets + 1]float64
	tokens  float64
}

// NewRetrier returns the retrier of a policy. rng (math/rand/v2) draws
// jitter; nil means a fixed-seed source.
func NewRetrier(p Policy, rng *rand.Rand) *Retrier {
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	if p.BudgetWindow <= 0 {
		p.BudgetWindow = vocab.DefaultBudgetWindow
	}
	r := &Retrier{p: p, rng: rng}
	r.width = p.BudgetWindow / budgetBuckets
	if r.width <= 0 {
		r.width = 1
	}
	if p.TokenBucket != nil {
		r.tokens = p.TokenBucket.Capacity
	}
	return r
}

// Policy returns the policy the retrier applies (with defaults filled in).
func (r *Retrier) Policy() Policy { return r.p }

// advance moves the budget ring to now; the caller holds mu.
func (r *Retrier) advance(now time.Duration) {
	if now < r.latest {
		now = r.latest
	}
	r.latest = now
	b := int64(now / r.width)
	if b <= r.cur {
		return
	}
	n := b - r.cur
	if n > int64(len(r.firsts)) {
		n = int64(len(r.firsts))
	}
	for i := int64(1); i <= n; i++ {
		k := (r.cur + i) % int64(len(r.firsts))
		r.firsts[k], r.retries[k] = 0, 0
	}
	r.cur = b
}

// FirstAttempt records that a logical request starts (its first attempt).
func (r *Retrier) FirstAttempt(now time.Duration) {
	if r.p.Budget == nil {
		return
	}
	r.mu.Lock()
	r.advance(now)
	r.firsts[r.cur%int64(len(r.firsts))]++
	r.mu.Unlock()
}

// Succeeded records a successful attempt (a token refund).
func (r *Retrier) Succeeded(now time.Duration) {
	tb := r.p.TokenBucket
	if tb == nil {
		return
	}
	r.mu.Lock()
	r.tokens = min(tb.Capacity, r.tokens+tb.SuccessRefund)
	r.mu.Unlock()
}

// Tokens returns the tokens left in the bucket (0 without a token bucket).
func (r *Retrier) Tokens() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tokens
}

// DontRetry, as Failure.RetryAfter, says the server asked that the call
// not be retried: a gRPC trailer grpc-retry-pushback-ms with a negative or
// malformed value (gRPC's retry design, A6). Any negative value means it.
const DontRetry time.Duration = -1

// Failed decides whether a failed attempt is retried and after which delay.
// Checks run in order: class, pushback (a negative RetryAfter: never, whatever
// the policy), cap, deadline, budget, tokens; a granted retry
// is charged to the budget window and the token bucket at now.
func (r *Retrier) Failed(now time.Duration, f Failure) Decision {
	p := &r.p
	if !p.On.Has(f.Outcome) {
		return Decision{Reason: "class"}
	}
	if f.RetryAfter < 0 {
		return Decision{Reason: "pushback"}
	}
	if f.Attempt-1 >= p.MaxRetries {
		return Decision{Reason: "cap"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var delay time.Duration
	if p.RetryAfter && f.RetryAfter > 0 && (f.Outcome == vocab.Outcome429 || f.Outcome == vocab.Outcome503) {
		limit := p.RetryAfterMax
		if limit <= 0 {
			limit = DefaultRetryAfterMax
		}
		delay = min(f.RetryAfter, limit)
	} else {
		delay = p.Backoff.Delay(f.Attempt, f.PrevDelay, r.rng)
	}
	if p.Deadline > 0 && now+delay+MinRetryRemaining > f.Started+p.Deadline {
		return Decision{Delay: delay, Reason: "deadline"}
	}
	if p.Budget != nil {
		r.advance(now)
		var retries, firsts float64
		n := int64(len(r.firsts))
		for i := int64(0); i < n; i++ {
			retries += r.retries[i]
		}
		for i := int64(0); i < n-1; i++ { // the n−1 buckets ending at cur
			firsts += r.firsts[(r.cur-i+n)%n]
		}
		if retries+1 > *p.Budget*firsts {
			return Decision{Delay: delay, Reason: "budget"}
		}
	}
	var cost float64
	if tb := p.TokenBucket; tb != nil {
		cost = tb.RetryCost
		if f.Outcome == vocab.OutcomeTimeout {
			cost = tb.TimeoutCost
		}
		if r.tokens < cost {
			return Decision{Delay: delay, Reason: "tokens"}
		}
	}
	if p.Budget != nil {
		r.retries[r.cur%int64(len(r.retries))]++
	}
	r.tokens -= cost
	return Decision{Retry: true, Delay: delay, Reason: "retry"}
}
