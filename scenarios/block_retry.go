package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// The client.retry block and its token_bucket and backoff sub-blocks
// decode into Client.Retry, a retry.Policy (see Client).

// Defaults of the attributes of client.retry and its sub-blocks; those
// the driver also fills in are vocab's.
const (
	// DefaultBudgetWindow is client.retry.budget_window (10 s).
	DefaultBudgetWindow = vocab.DefaultBudgetWindow
	// DefaultBackoffKind is client.retry.backoff.kind.
	DefaultBackoffKind = vocab.DefaultBackoffKind
	// DefaultBackoffBase is client.retry.backoff.base when kind is not
	// DefaultBackoffKind.
	DefaultBackoffBase = 100 * time.Millisecond
	// DefaultBackoffMax is client.retry.backoff.max (10 s).
	DefaultBackoffMax = vocab.DefaultBackoffMax
	// DefaultJitter is client.retry.backoff.jitter.
	DefaultJitter = vocab.DefaultJitter
	// DefaultBucketCapacity is client.retry.token_bucket.capacity, in tokens.
	DefaultBucketCapacity = 500
	// DefaultRetryCost is client.retry.token_bucket.retry_cost, in tokens.
	DefaultRetryCost = 5
	// DefaultTimeoutCost is client.retry.token_bucket.timeout_cost, in tokens.
	DefaultTimeoutCost = 10
	// DefaultSuccessRefund is client.retry.token_bucket.success_refund, in tokens.
	DefaultSuccessRefund = 1
)

// defaultRetryOn is client.retry.on: vocab.DefaultRetryOn, timeouts,
// connection failures and 5xx other than 503.
var defaultRetryOn = retry.NewOutcomeSet(vocab.DefaultRetryOn()...)

// The names of client.retry.on and of the backoff's kind and jitter,
// vocab's, in the order they are listed to users.
var (
	outcomeClasses = vocab.RetryOnNames()
	backoffKinds   = vocab.BackoffKindNames()
	jitterKinds    = vocab.JitterNames()
)

// The schemas of client.retry and of its token_bucket and backoff
// sub-blocks: attribute names are the snake_case of retry.Policy's,
// retry.TokenBucket's and retry.Backoff's fields.
var (
	retrySchema = &hcl.BodySchema{
		Attributes: attrs("max_retries", "on", "budget", "budget_window", "retry_after"),
		Blocks:     blocks("token_bucket", "backoff"),
	}
	tokenBucketSchema = &hcl.BodySchema{Attributes: attrs("capacity", "retry_cost", "timeout_cost", "success_refund")}
	backoffSchema     = &hcl.BodySchema{Attributes: attrs("kind", "base", "max", "jitter")}
)

// decodeRetry decodes the client.retry block and its token_bucket and
// backoff sub-blocks, with their defaults.
func (d *decoder) decodeRetry(blk *hcl.Block) retry.Policy {
	b := d.open("retry", "client.retry", blk.Body, blk.DefRange, schemaOf("client.retry"))
	r := retry.Policy{
		MaxRetries:   b.integer("max_retries", 0),
		On:           b.outcomes("on", defaultRetryOn),
		Budget:       b.optNum("budget"),
		BudgetWindow: b.duration("budget_window", DefaultBudgetWindow),
		RetryAfter:   b.boolean("retry_after", true),
	}
	if tb := b.one("token_bucket", false, ""); tb != nil {
		t := d.open("token_bucket", "client.retry.token_bucket", tb.Body, tb.DefRange, schemaOf("client.retry.token_bucket"))
		r.TokenBucket = &retry.TokenBucket{
			Capacity:      t.num("capacity", DefaultBucketCapacity),
			RetryCost:     t.num("retry_cost", DefaultRetryCost),
			TimeoutCost:   t.num("timeout_cost", DefaultTimeoutCost),
			SuccessRefund: t.num("success_refund", DefaultSuccessRefund),
		}
	}
	r.Backoff = retry.Backoff{Kind: DefaultBackoffKind, Max: DefaultBackoffMax, Jitter: DefaultJitter}
	if bb := b.one("backoff", false, ""); bb != nil {
		k := d.open("backoff", "client.retry.backoff", bb.Body, bb.DefRange, schemaOf("client.retry.backoff"))
		r.Backoff.Kind = enum(k, "kind", "backoff kind", DefaultBackoffKind, backoffKinds, vocab.ParseBackoffKind)
		base := time.Duration(0)
		if r.Backoff.Kind != vocab.BackoffNone {
			base = DefaultBackoffBase
		}
		r.Backoff.Base = k.duration("base", base)
		r.Backoff.Max = k.duration("max", DefaultBackoffMax)
		r.Backoff.Jitter = enum(k, "jitter", "jitter", DefaultJitter, jitterKinds, vocab.ParseJitter)
	}
	return r
}

// retry checks the client.retry block and its token_bucket and backoff
// sub-blocks.
func (v *validator) retry(r *retry.Policy) {
	v.errorf(r.MaxRetries < 0 || r.MaxRetries > MaxRetries, "client.retry.max_retries", "Value out of range",
		"max_retries is R, the retries after the first attempt (A = R + 1), and must be from 0 to %d. Got %d.", MaxRetries, r.MaxRetries)
	v.warnf(r.On == 0 && r.MaxRetries > 0, "client.retry.on", "Nothing is retried",
		"on is empty, so no outcome is retried and max_retries = %d has no effect. Retry timeouts with on = [\"timeout\"].", r.MaxRetries)
	if r.Budget != nil {
		v.fraction(*r.Budget, false, "client.retry.budget", "budget", "β, retries as a fraction of first attempts")
	}
	v.positiveDur(r.BudgetWindow, "client.retry.budget_window", "budget_window", "the window over which the budget is counted")
	if tb := r.TokenBucket; tb != nil && v.present("client.retry.token_bucket") {
		const p = "client.retry.token_bucket."
		v.errorf(tb.Capacity <= 0, p+"capacity", "Value out of range", "capacity is the tokens of a full bucket and must be greater than zero. Got %g.", tb.Capacity)
		v.errorf(tb.RetryCost < 0, p+"retry_cost", "Value out of range", "retry_cost must not be negative. Got %g.", tb.RetryCost)
		v.errorf(tb.TimeoutCost < 0, p+"timeout_cost", "Value out of range", "timeout_cost must not be negative. Got %g.", tb.TimeoutCost)
		v.errorf(tb.SuccessRefund < 0, p+"success_refund", "Value out of range", "success_refund must not be negative. Got %g.", tb.SuccessRefund)
	}
	if !v.present("client.retry.backoff") {
		return
	}
	b := &r.Backoff
	const p = "client.retry.backoff."
	v.nonNegDur(b.Base, p+"base", "base", "the constant delay, or the first exponential one")
	v.positiveDur(b.Max, p+"max", "max", "the cap on the exponential delay")
	if b.Kind == vocab.BackoffExponential || (b.Kind == vocab.BackoffConstant && v.d.src.has(p+"max")) {
		ok := v.d.src.ok(p+"base") && b.Base >= 0
		v.errorf(ok && b.Max > 0 && b.Max < b.Base, p+"max", "Backoff max below base",
			"The backoff cap max (%s) is shorter than its base delay (%s): every delay would be cut to max. Raise max or lower base.", b.Max, b.Base)
	}
}
