package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"

	"github.com/trigger-test/trigger/vocab"
)

// OutcomeSet is a set of outcome classes (a bit per Outcome).
type OutcomeSet uint16

// NewOutcomeSet returns the set of the given outcomes.
func NewOutcomeSet(os ...vocab.Outcome) OutcomeSet {
	var s OutcomeSet
	for _, o := range os {
		if o < vocab.NumOutcomes {
			s |= 1 << o
		}
	}
	return s
}

// ParseOutcomeSet parses outcome class names (vocab.ParseOutcome) into a set.
func ParseOutcomeSet(names []string) (OutcomeSet, error) {
	var s OutcomeSet
	for _, n := range names {
		o, err := vocab.ParseOutcome(n)
		if err != nil {
			return 0, fmt.Errorf("loadgen: %w", err)
		}
		s |= NewOutcomeSet(o)
	}
	return s, nil
}

// Has reports whether o is in the set.
func (s OutcomeSet) Has(o vocab.Outcome) bool { return o < vocab.NumOutcomes && s&(1<<o) != 0 }

// String lists the set's outcomes, comma-separated.
func (s OutcomeSet) String() string {
	var parts []string
	for o := vocab.Outcome(0); o < vocab.NumOutcomes; o++ {
		if s.Has(o) {
			parts = append(parts, o.String())
		}
	}
	return strings.Join(parts, ",")
}

// ClassifyStatus returns the outcome of an HTTP status code when ok lists
// the statuses that are a success (empty: 200–299). A listed status is
// OutcomeOK whatever it is; an unlisted one below 400 is OutcomeOther.
func ClassifyStatus(code int, ok []int) vocab.Outcome {
	switch {
	case len(ok) == 0 && code >= 200 && code <= 299, slices.Contains(ok, code):
		return vocab.OutcomeOK
	case code == http.StatusTooManyRequests:
		return vocab.Outcome429
	case code == http.StatusServiceUnavailable:
		return vocab.Outcome503
	case code >= 500:
		return vocab.Outcome5xx
	case code >= 400:
		return vocab.Outcome4xx
	}
	return vocab.OutcomeOther
}

// answeredStatus reports whether a response read whole with status code
// (0: none) is the service itself answering: any status below 500 but
// 429, a success or not (a redirect, a 4xx). A tracer's latency is a queue
// wait only then: a 5xx may come from a layer in front of the service that
// gave up first, and a 429 from a rate limiter that never queued it.
func answeredStatus(code int) bool {
	return code > 0 && code < 500 && code != http.StatusTooManyRequests
}

// serverError reports whether the attempt was answered with a status ≥ 500
// (Outcome5xx, Outcome503).
func serverError(o vocab.Outcome) bool { return o == vocab.Outcome5xx || o == vocab.Outcome503 }

// ClassifyError returns the outcome of an error returned by a round trip or
// by reading the response body. attemptCtx is the attempt's context: when its
// deadline has passed the attempt is a timeout whatever error surfaced first.
func ClassifyError(attemptCtx context.Context, err error) vocab.Outcome {
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return vocab.OutcomeTimeout
	}
	if errors.Is(err, context.Canceled) {
		return vocab.OutcomeOther
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return vocab.OutcomeTimeout
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return vocab.OutcomeConnect
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return vocab.OutcomeConnect
	}
	return vocab.OutcomeOther
}
