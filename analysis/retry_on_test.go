package analysis

import (
	"math"
	"testing"

	"github.com/trigger-test/trigger/vocab"
)

// What each retry layer sees of a failed try in the failed state, and the
// amplification that follows from what it retries on (docs/model.md,
// "Retry debt and amplification"): a gateway that retries only 503s adds
// nothing while every try times out, and a client that retries only
// timeouts adds nothing behind a gateway that answers 504 first.
func TestFailedStateOutcomes(t *testing.T) {
	on := func(os ...vocab.Outcome) []vocab.Outcome { return os }
	T, X, S := vocab.OutcomeTimeout, vocab.Outcome5xx, vocab.Outcome503
	client := func(o ...vocab.Outcome) RetryLayer { return RetryLayer{Name: "client", MaxRetries: 2, On: o} }
	for _, tc := range []struct {
		name     string
		timeoutS float64
		layers   []RetryLayer
		sees     []vocab.Outcome
		a        float64
	}{
		{"a gateway retrying every failure", 1, []RetryLayer{client(T), {Name: "gw", MaxRetries: 1}}, on(T, T), 6},
		{"a gateway retrying only 503", 1, []RetryLayer{client(T), {Name: "gw", MaxRetries: 1, On: on(S)}}, on(T, T), 3},
		{"a gateway's 504 before the client's timeout, clients retry timeouts only", 1,
			[]RetryLayer{client(T), {Name: "gw", MaxRetries: 2, TimeoutS: 0.3}}, on(X, T), 3},
		{"a gateway's 504 before the client's timeout, clients retry 5xx", 1,
			[]RetryLayer{client(T, X), {Name: "gw", MaxRetries: 2, TimeoutS: 0.3}}, on(X, T), 9},
		{"the client gives up before the gateway's three tries", 0.5,
			[]RetryLayer{client(T), {Name: "gw", MaxRetries: 2, TimeoutS: 0.3}}, on(T, T), 9},
		{"a gateway not retrying its timeouts answers sooner", 1,
			[]RetryLayer{client(T, X), {Name: "gw", MaxRetries: 2, TimeoutS: 0.3, On: on(S)}}, on(X, T), 3},
		{"a mesh's 5xx reaches a gateway with no timeout", 1,
			[]RetryLayer{client(X), {Name: "gw", MaxRetries: 1, On: on(X)}, {Name: "mesh", MaxRetries: 1, TimeoutS: 0.2}}, on(X, X, T), 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetFailedStateOutcomes(tc.timeoutS, tc.layers)
			a := 1.0
			for i, l := range tc.layers {
				if l.Sees != tc.sees[i] {
					t.Errorf("layer %s sees %s, want %s", l.Name, l.Sees, tc.sees[i])
				}
				a *= l.Amplification()
			}
			if math.Abs(a-tc.a) > 1e-9 {
				t.Errorf("A = %v, want %v", a, tc.a)
			}
		})
	}
}

// A layer whose failed-state outcome was never worked out retries as
// before: every failure, R + 1 tries.
func TestRetryLayerWithoutSees(t *testing.T) {
	l := RetryLayer{Name: "gw", MaxRetries: 2, On: []vocab.Outcome{vocab.Outcome503}}
	if l.Amplification() != 3 || l.TriesInFailedState() != 3 {
		t.Errorf("A = %v, tries %d; want 3, 3", l.Amplification(), l.TriesInFailedState())
	}
}
