package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"

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

// Defaults of the client block's attributes and of its tracers
// sub-block; those the driver also fills in are vocab's.
const (
	// DefaultMaxInFlight is client.max_in_flight, in concurrent attempts.
	DefaultMaxInFlight = vocab.DefaultMaxInFlight
	// DefaultArrivals is client.arrivals.
	DefaultArrivals = vocab.DefaultArrivals
	// DefaultTracerRate is client.tracers.rate, in probes per second.
	DefaultTracerRate = vocab.DefaultTracerRate
	// DefaultTracerTimeout is client.tracers.timeout (60 s).
	DefaultTracerTimeout = vocab.DefaultTracerTimeout
)

// arrivalKinds are the names of client.arrivals, vocab's, in the order
// they are listed to users.
var arrivalKinds = vocab.ArrivalsNames()

// The schemas of the client block and of its tracers sub-block (the
// retry sub-block's are in block_retry.go): attribute names are the
// snake_case of Client's and vocab.Tracers' fields.
var (
	clientSchema = &hcl.BodySchema{
		Attributes: attrs("timeout", "arrivals", "max_in_flight", "deadline"),
		Blocks:     blocks("retry", "tracers"),
	}
	tracersSchema = &hcl.BodySchema{Attributes: attrs("rate", "timeout")}
)

// decodeClient decodes the client block and its retry and tracers
// sub-blocks, with their defaults.
func (d *decoder) decodeClient(blk *hcl.Block) Client {
	b := d.open("client", "client", blk.Body, blk.DefRange, schemaOf("client"))
	c := Client{
		Timeout:     b.duration("timeout", 0),
		Arrivals:    enum(b, "arrivals", "arrival process", DefaultArrivals, arrivalKinds, vocab.ParseArrivals),
		MaxInFlight: b.integer("max_in_flight", DefaultMaxInFlight),
		// Without a retry block the client does not retry; the policy
		// fields still hold their defaults.
		Retry: retry.Policy{
			On:           defaultRetryOn,
			BudgetWindow: DefaultBudgetWindow,
			RetryAfter:   true,
			Backoff:      retry.Backoff{Kind: DefaultBackoffKind, Max: DefaultBackoffMax, Jitter: DefaultJitter},
		},
	}
	deadline := b.duration("deadline", 0)
	b.require("timeout", `τ_out, the patience of one attempt, e.g. timeout = "1s".`)
	if rb := b.one("retry", false, ""); rb != nil {
		c.Retry = d.decodeRetry(rb)
	}
	c.Retry.Deadline = deadline
	if tb := b.one("tracers", false, ""); tb != nil {
		t := d.open("tracers", "client.tracers", tb.Body, tb.DefRange, schemaOf("client.tracers"))
		c.Tracers = &vocab.Tracers{
			Rate:    t.num("rate", DefaultTracerRate),
			Timeout: t.duration("timeout", DefaultTracerTimeout),
		}
	}
	return c
}

// client checks the client block and its retry and tracers sub-blocks.
func (v *validator) client() {
	if !v.present("client") {
		return
	}
	c := &v.s.Client
	v.positiveDur(c.Timeout, "client.timeout", "timeout", "τ_out, the patience of one attempt")
	v.errorf(c.MaxInFlight <= 0 || c.MaxInFlight > MaxInFlight, "client.max_in_flight", "Value out of range",
		"max_in_flight bounds the attempts in flight at once and must be at least 1 and at most 1,000,000. Got %d.", c.MaxInFlight)
	v.nonNegDur(c.Retry.Deadline, "client.deadline", "deadline", "the overall deadline of one request across its attempts (0: none)")
	if v.present("client.retry") {
		v.retry(&c.Retry)
	}
	if t := c.Tracers; t != nil && v.present("client.tracers") {
		v.errorf(t.Rate <= 0, "client.tracers.rate", "Value out of range", "rate is probes per second and must be greater than zero. Got %g.", t.Rate)
		v.errorf(t.Rate > MaxTracerRate, "client.tracers.rate", "Value out of range",
			"rate is probes per second and may be at most %d: tracers are a thin stream beside the load, not load. Got %g.", MaxTracerRate, t.Rate)
		v.positiveDur(t.Timeout, "client.tracers.timeout", "timeout", "the patience of one probe")
		v.warnf(t.Timeout > 0 && c.Timeout > 0 && t.Timeout <= c.Timeout, "client.tracers.timeout", "Tracer timeout too short",
			"Tracers measure the queue wait while normal attempts time out, so their timeout (%s) should be well above the client timeout (%s), e.g. 60s.",
			t.Timeout, c.Timeout)
	}
}
