package analysis

import (
	"math"
	"slices"

	"github.com/trigger-test/trigger/vocab"
)

// Retries reports whether the layer retries a try that failed with
// outcome o: On nil retries every failure.
func (l RetryLayer) Retries(o vocab.Outcome) bool {
	return o != vocab.OutcomeOK && (l.On == nil || slices.Contains(l.On, o))
}

// RetriesInFailedState reports whether the layer retries what it sees of
// a failed try in the failed state (Sees); a layer whose Sees was not
// worked out counts as retrying.
func (l RetryLayer) RetriesInFailedState() bool {
	return l.Sees == vocab.OutcomeOK || l.Retries(l.Sees)
}

// TriesInFailedState is the tries the layer makes per call in the failed
// state: R + 1, or 1 when it does not retry what it sees.
func (l RetryLayer) TriesInFailedState() int {
	if !l.RetriesInFailedState() {
		return 1
	}
	return l.MaxRetries + 1
}

// SetFailedStateOutcomes works out, for each retry layer (the client
// first, then inwards towards the service), the outcome of a failed try
// at that layer once the service's wait exceeds every patience, and sets
// its Sees (docs/model.md, "Retry debt and amplification", what a layer
// retries on). The innermost layer's tries time out (its own per-try
// timeout, or its caller's patience when it has none). A layer with a
// per-try timeout that gives up after all its tries answers its caller a
// 5xx (a gateway's 504); a layer passes on what it saw from inside
// otherwise. A layer sees the answer of the layer inside it when that
// comes before its own timeout (the client's is timeoutS), else a
// timeout. Whether a layer retries what it sees (On) sets how many tries
// it makes, and so when it answers.
func SetFailedStateOutcomes(timeoutS float64, layers []RetryLayer) {
	answerAt, answer := math.Inf(1), vocab.OutcomeTimeout // the layer inside: when it answers, and what
	for j := len(layers) - 1; j >= 0; j-- {
		l := &layers[j]
		own := l.TimeoutS
		if j == 0 {
			own = timeoutS
		}
		if !(own > 0) {
			own = math.Inf(1)
		}
		perTry := own
		if answerAt < own {
			l.Sees, perTry = answer, answerAt
		} else {
			l.Sees = vocab.OutcomeTimeout
		}
		answerAt = perTry * float64(l.TriesInFailedState())
		switch {
		case l.Sees == vocab.OutcomeTimeout && !math.IsInf(own, 1):
			answer = vocab.Outcome5xx
		default:
			answer = l.Sees
		}
	}
}
