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

// Outcome is the class of one attempt's result; the names and the parser
// are vocab's.
type Outcome = vocab.Outcome

const (
	// OutcomeOK is a response with a status that counts as success:
	// 200–299, or the statuses listed in Config.OKStatus.
	OutcomeOK = vocab.OutcomeOK
	// OutcomeTimeout is an attempt the client gave up on (its per-attempt
	// timeout or the overall deadline expired before the whole response arrived).
	OutcomeTimeout = vocab.OutcomeTimeout
	// OutcomeConnect is a failure to connect or a connection that failed
	// before any response: refused, reset, closed without a response.
	OutcomeConnect = vocab.OutcomeConnect
	// Outcome5xx is a 5xx response other than 503.
	Outcome5xx = vocab.Outcome5xx
	// Outcome429 is a 429 Too Many Requests response.
	Outcome429 = vocab.Outcome429
	// Outcome503 is a 503 Service Unavailable response.
	Outcome503 = vocab.Outcome503
	// Outcome4xx is a 4xx response other than 429: the service answered, with
	// a client error (told apart from OutcomeOther, a broken exchange).
	Outcome4xx = vocab.Outcome4xx
	// OutcomeOther is anything else: malformed responses, attempts cancelled
	// because the run ended, requests that could not be built, and
	// responses with a status below 400 that is not a success (not in
	// Config.OKStatus: a redirect, which is never followed, or a 2xx the
	// clients do not accept).
	OutcomeOther = vocab.OutcomeOther
	// NumOutcomes is the number of outcome classes (array sizes).
	NumOutcomes = vocab.NumOutcomes
)

// OutcomeSet is a set of outcome classes (a bit per Outcome).
type OutcomeSet uint16

// NewOutcomeSet returns the set of the given outcomes.
func NewOutcomeSet(os ...Outcome) OutcomeSet {
	var s OutcomeSet
	for _, o := range os {
		if o < NumOutcomes {
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
func (s OutcomeSet) Has(o Outcome) bool { return o < NumOutcomes && s&(1<<o) != 0 }

// String lists the set's outcomes, comma-separated.
func (s OutcomeSet) String() string {
	var parts []string
	for o := Outcome(0); o < NumOutcomes; o++ {
		if s.Has(o) {
			parts = append(parts, o.String())
		}
	}
	return strings.Join(parts, ",")
}

// ClassifyStatus returns the outcome of an HTTP status code when ok lists
// the statuses that are a success (empty: 200–299). A listed status is
// OutcomeOK whatever it is; an unlisted one below 400 is OutcomeOther.
func ClassifyStatus(code int, ok []int) Outcome {
	switch {
	case len(ok) == 0 && code >= 200 && code <= 299, slices.Contains(ok, code):
		return OutcomeOK
	case code == http.StatusTooManyRequests:
		return Outcome429
	case code == http.StatusServiceUnavailable:
		return Outcome503
	case code >= 500:
		return Outcome5xx
	case code >= 400:
		return Outcome4xx
	}
	return OutcomeOther
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
func serverError(o Outcome) bool { return o == Outcome5xx || o == Outcome503 }

// ClassifyError returns the outcome of an error returned by a round trip or
// by reading the response body. attemptCtx is the attempt's context: when its
// deadline has passed the attempt is a timeout whatever error surfaced first.
func ClassifyError(attemptCtx context.Context, err error) Outcome {
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return OutcomeTimeout
	}
	if errors.Is(err, context.Canceled) {
		return OutcomeOther
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return OutcomeTimeout
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return OutcomeConnect
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return OutcomeConnect
	}
	return OutcomeOther
}
