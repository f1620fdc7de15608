package prom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// classified is the verdict on one failed attempt.
type classified struct {
	err       error // what to report if no retry follows
	transient bool  // worth another attempt
}

// classify turns the error of one attempt into the error the caller sees
// and says whether another attempt may succeed: connection refused or
// reset, HTTP 5xx and 429 are transient; timeouts are not (a slow server is
// not helped by more load), nor are query errors.
func classify(parent context.Context, err error, a *attempt, addr string, timeout time.Duration) classified {
	if perr := parent.Err(); perr != nil {
		// The caller's context ended this attempt: keep its error (so a
		// cancellation is still recognised) but say where, and what the
		// attempt had met.
		return classified{err: fmt.Errorf("prometheus at %s: %w (the attempt: %v)", addr, perr, err)}
	}
	if errors.Is(err, errAnswerTooLarge) {
		// Asking again brings the same answer.
		return classified{err: fmt.Errorf("prometheus at %s: %w: %w", addr, ErrServer, errAnswerTooLarge)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return classified{err: fmt.Errorf("prometheus at %s: %w within %v", addr, ErrTimeout, timeout)}
	}
	var apiErr *v1.Error
	if errors.As(err, &apiErr) {
		return classifyAPI(apiErr, a, addr)
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	if errors.Is(err, errCrossOrigin) {
		// Prometheus' address answered with a redirect elsewhere: no
		// retry will change that, and none will follow it.
		return classified{err: fmt.Errorf("prometheus at %s: %w: %w", addr, ErrServer, cause)}
	}
	if a.status != 0 {
		// An answer came but could not be read (e.g. the body was cut).
		return classified{err: fmt.Errorf("prometheus at %s: %w: reading the answer: %w", addr, ErrServer, cause), transient: true}
	}
	return classified{
		err:       fmt.Errorf("prometheus at %s: %w: %w", addr, ErrUnreachable, cause),
		transient: transientNet(err),
	}
}

// classifyAPI handles an error of client_golang's v1 API: an error answer
// of the Prometheus API (bad_data, execution) or a bare HTTP error status.
func classifyAPI(e *v1.Error, a *attempt, addr string) classified {
	switch e.Type {
	case v1.ErrBadData:
		return classified{err: fmt.Errorf("%w: %s", ErrBadQuery, e.Msg)}
	case v1.ErrExec:
		return classified{err: fmt.Errorf("%w: execution: %s", ErrBadQuery, e.Msg)}
	case v1.ErrBadResponse:
		if a.status/100 == 2 {
			return classified{err: fmt.Errorf("prometheus at %s: %w: not a Prometheus API answer (%s); is the address the base URL of Prometheus?", addr, ErrServer, e.Msg)}
		}
	}
	status := a.status
	if strings.Contains(e.Detail, `"errorType":"timeout"`) || strings.Contains(e.Detail, `"errorType":"canceled"`) {
		// The server gave up evaluating the query: more attempts are more
		// load on a server that is already too slow.
		return classified{err: fmt.Errorf("prometheus at %s: %w: the server timed the query out (HTTP %d)", addr, ErrTimeout, status)}
	}
	detail := strings.TrimSpace(e.Detail)
	if len(detail) > 200 {
		detail = detail[:200] + "..."
	}
	msg := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if status == 0 {
		msg = e.Error()
	}
	if detail != "" {
		msg += ": " + detail
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		msg += " (check the bearer token or basic auth)"
	case status == http.StatusNotFound:
		msg += " (is the address the base URL of Prometheus?)"
	}
	return classified{
		err:       fmt.Errorf("prometheus at %s: %w: %s", addr, ErrServer, msg),
		transient: status == http.StatusTooManyRequests || status >= 500,
	}
}

// transientNet reports whether a transport error may pass on its own:
// refused or reset connections and connections closed mid-answer, as when
// Prometheus restarts. Unknown hosts and TLS failures do not.
func transientNet(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
