package convert

import (
	"fmt"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// retryPolicy converts the scenario's client retry block into the driver's
// policy; the scenario has been validated, so an error here is a bug.
func retryPolicy(c scenarios.Client) (retry.Policy, error) {
	on, err := retry.ParseOutcomeSet(c.Retry.On)
	if err != nil {
		return retry.Policy{}, fmt.Errorf("convert: retry classes: %w", err)
	}
	kind, err := vocab.ParseBackoffKind(c.Retry.Backoff.Kind)
	if err != nil {
		return retry.Policy{}, fmt.Errorf("convert: backoff: %w", err)
	}
	jitter, err := vocab.ParseJitter(c.Retry.Backoff.Jitter)
	if err != nil {
		return retry.Policy{}, fmt.Errorf("convert: jitter: %w", err)
	}
	p := retry.Policy{
		MaxRetries:   c.Retry.MaxRetries,
		On:           on,
		Budget:       c.Retry.Budget,
		BudgetWindow: c.Retry.BudgetWindow,
		Backoff:      retry.Backoff{Kind: kind, Base: c.Retry.Backoff.Base, Max: c.Retry.Backoff.Max, Jitter: jitter},
		RetryAfter:   c.Retry.RetryAfter,
		Deadline:     c.Deadline,
	}
	if tb := c.Retry.TokenBucket; tb != nil {
		p.TokenBucket = &retry.TokenBucket{Capacity: tb.Capacity, RetryCost: tb.RetryCost, TimeoutCost: tb.TimeoutCost, SuccessRefund: tb.SuccessRefund}
	}
	return p, nil
}

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
