package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"syscall"

	"github.com/trigger-test/trigger/vocab"
)

// ClassifyStatus returns the outcome of an HTTP status code when ok lists
// the statuses that are a success (empty: 200–299). A listed status is
// OutcomeOK whatever it is; 401 and 403 are OutcomeAuth (credentials
// refused); an unlisted one below 400 is OutcomeOther.
func ClassifyStatus(code int, ok []int) vocab.Outcome {
	switch {
	case len(ok) == 0 && code >= 200 && code <= 299, slices.Contains(ok, code):
		return vocab.OutcomeOK
	case code == http.StatusTooManyRequests:
		return vocab.Outcome429
	case code == http.StatusServiceUnavailable:
		return vocab.Outcome503
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return vocab.OutcomeAuth
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
	if errors.As(err, &oe) && (oe.Op == "dial" || oe.Op == "remote error") {
		return vocab.OutcomeConnect // refused, or a TLS alert from the server
	}
	var cv *tls.CertificateVerificationError
	var rh tls.RecordHeaderError
	if errors.As(err, &cv) || errors.As(err, &rh) {
		return vocab.OutcomeConnect // the TLS handshake failed: no connection
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EADDRNOTAVAIL) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return vocab.OutcomeConnect
	}
	return vocab.OutcomeOther
}
