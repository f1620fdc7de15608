package retry

import (
	"fmt"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// TokenBucket is a retry quota like the AWS SDKs' standard retry mode: the
// bucket starts full, a retry costs tokens (more after a timeout), a
// successful attempt refunds some; a retry that would overdraw it is refused.
type TokenBucket struct {
	Capacity      float64 // tokens when full (AWS: 500)
	RetryCost     float64 // tokens a retry after an error costs (AWS: 5)
	TimeoutCost   float64 // tokens a retry after a timeout costs (AWS: 10)
	SuccessRefund float64 // tokens a successful attempt returns, up to Capacity (AWS: 1)
}

// Policy is the configuration of one client population's retries.
// The amplification A each setting gives once every attempt fails is in
// docs/model.md, "Retry debt and amplification".
type Policy struct {
	MaxRetries int        // R: retries after the first attempt (A = R + 1)
	On         OutcomeSet // outcome classes that may be retried
	// Budget is β: retries ≤ β × first attempts over BudgetWindow
	// (A = 1 + β); nil = none.
	Budget       *float64
	BudgetWindow time.Duration // sliding window of the budget; 0 = vocab.DefaultBudgetWindow (10 s)
	TokenBucket  *TokenBucket  // nil = none
	Backoff      Backoff
	RetryAfter   bool // honour Retry-After on 429/503 (wins over backoff)
	// RetryAfterMax caps the Retry-After delay honoured; 0 means
	// DefaultRetryAfterMax. A service asking for a day must not keep the
	// run's requests pending for a day.
	RetryAfterMax time.Duration
	Deadline      time.Duration // overall deadline of a logical request; 0 = none
}

// DefaultRetryAfterMax is the longest Retry-After honoured when
// Policy.RetryAfterMax is 0.
const DefaultRetryAfterMax = time.Minute

// budgetBuckets is the number of buckets the budget window is cut into; see
// Retrier for why the bucketing can only make the budget stricter.
const budgetBuckets = 100

// MinRetryRemaining is the least time that must be left before the overall
// deadline when a retry would be sent; a retry with less is refused ("deadline").
const MinRetryRemaining = time.Millisecond

// Validate reports a policy that cannot work: negative caps, costs or delays,
// a budget outside [0, 1e6].
func (p Policy) Validate() error {
	switch {
	case p.MaxRetries < 0:
		return fmt.Errorf("retry: negative max retries %d", p.MaxRetries)
	case p.Budget != nil && (*p.Budget < 0 || *p.Budget > 1e6 || *p.Budget != *p.Budget):
		return fmt.Errorf("retry: invalid budget %v", *p.Budget)
	case p.BudgetWindow < 0 || p.Deadline < 0:
		return fmt.Errorf("retry: negative budget window or deadline")
	case p.Backoff.Base < 0 || p.Backoff.Max < 0:
		return fmt.Errorf("retry: negative backoff")
	case p.Backoff.Kind > vocab.BackoffExponential || p.Backoff.Jitter > vocab.JitterDecorrelated:
		return fmt.Errorf("retry: unknown backoff kind or jitter")
	}
	if tb := p.TokenBucket; tb != nil && (tb.Capacity < 0 || tb.RetryCost < 0 || tb.TimeoutCost < 0 || tb.SuccessRefund < 0) {
		return fmt.Errorf("retry: negative token bucket value")
	}
	return nil
}
