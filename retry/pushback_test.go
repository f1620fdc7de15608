package retry

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// TestRetrierPushbackDontRetry: a failure whose RetryAfter is negative
// (DontRetry: a gRPC grpc-retry-pushback-ms that is negative or malformed)
// is never retried, whatever the class and policy; a positive one is the
// delay, as Retry-After is.
func TestRetrierPushbackDontRetry(t *testing.T) {
	p := Policy{MaxRetries: 3, On: NewOutcomeSet(vocab.Outcome503, vocab.Outcome5xx), RetryAfter: true,
		Backoff: Backoff{Kind: vocab.BackoffConstant, Base: 10 * time.Millisecond}}
	r := NewRetrier(p, nil)
	for _, o := range []vocab.Outcome{vocab.Outcome503, vocab.Outcome5xx} {
		for _, ra := range []time.Duration{DontRetry, -5 * time.Second} {
			d := r.Failed(0, Failure{Attempt: 1, Outcome: o, RetryAfter: ra})
			if d.Retry || d.Reason != "pushback" {
				t.Errorf("%v with RetryAfter %v: %+v, want no retry for pushback", o, ra, d)
			}
		}
	}
	d := r.Failed(0, Failure{Attempt: 1, Outcome: vocab.Outcome503, RetryAfter: 250 * time.Millisecond})
	if !d.Retry || d.Delay != 250*time.Millisecond {
		t.Errorf("pushback 250ms: %+v, want a retry after 250ms", d)
	}
}
