package scenarios

import (
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Client is the behaviour of the clients the test impersonates (block "client").
type Client struct {
	Timeout     time.Duration // τ_out, patience of one attempt; required, > 0
	Arrivals    string        // "poisson" (default) or "uniform"
	MaxInFlight int           // bound on concurrent attempts; default 20000
	// Deadline is the overall deadline of one logical request across all its
	// attempts; zero means none.
	Deadline time.Duration
	Retry    Retry
	// Tracers are the wait tracers (block "client.tracers": rate default
	// 2 per second, timeout default 60s); nil when the block is absent.
	Tracers *vocab.Tracers
}

// Retry is the clients' retry policy (block "client.retry"). Without the
// block the client does not retry (MaxRetries 0).
type Retry struct {
	MaxRetries int      // R: retries after the first attempt; default 0
	On         []string // outcome classes retried: timeout, connect, 5xx, 429, 503, 4xx, other; default [timeout, connect, 5xx]
	// Budget is β: retries per second at most Budget × first attempts per
	// second, in [0, 1]; nil means no budget.
	Budget *float64
	// BudgetWindow is the sliding window over which the budget is counted; default 10s.
	BudgetWindow time.Duration
	// RetryAfter honours a Retry-After header on 429 and 503; default true.
	RetryAfter  bool
	TokenBucket *TokenBucket // nil when the block is absent
	Backoff     Backoff
}

// TokenBucket is a retry quota like the AWS SDKs' standard mode
// (block "client.retry.token_bucket"): a retry costs tokens, a success refunds.
type TokenBucket struct {
	Capacity      float64 // tokens when full; default 500
	RetryCost     float64 // tokens a retry after an error costs; default 5
	TimeoutCost   float64 // tokens a retry after a timeout costs; default 10
	SuccessRefund float64 // tokens a success returns; default 1
}

// Backoff is the delay before a retry (block "client.retry.backoff").
type Backoff struct {
	Kind   string        // "none" (default), "constant" or "exponential"
	Base   time.Duration // constant delay, or first exponential delay; default 100ms when Kind != none
	Max    time.Duration // cap on the exponential delay; default 10s
	Jitter string        // "none" (default), "full", "equal" or "decorrelated"
}
