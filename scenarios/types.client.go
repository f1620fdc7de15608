package scenarios

import (
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Client is the behaviour of the clients the test impersonates (block "client").
type Client struct {
	Timeout     time.Duration  // τ_out, patience of one attempt; required, > 0
	Arrivals    vocab.Arrivals // first-attempt arrival process: vocab.Poisson (default) or vocab.Uniform
	MaxInFlight int            // bound on concurrent attempts; default 20000
	// Retry is the clients' retry policy as the driver and the
	// request-level model apply it: block "client.retry" (max_retries R,
	// default 0; on, default timeout, connect and 5xx; budget β in [0, 1],
	// nil for none; budget_window, default 10s; retry_after, default true;
	// token_bucket, nil when the block is absent; backoff, default none
	// with max 10s and no jitter), with client.deadline, the overall
	// deadline of one logical request across all its attempts (zero: none),
	// as Retry.Deadline. Without the block the clients do not retry
	// (MaxRetries 0); the other fields still hold their defaults.
	// RetryAfterMax is left zero: retry.DefaultRetryAfterMax (1 min).
	Retry retry.Policy
	// Tracers are the wait tracers (block "client.tracers": rate default
	// 2 per second, timeout default 60s); nil when the block is absent.
	Tracers *vocab.Tracers
}
