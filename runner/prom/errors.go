package prom

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns for a query is a
// *QueryError naming the query and wrapping one of these (test with
// errors.Is) or a context error; Ping returns them without a QueryError.
var (
	// ErrNoData means the query returned no series (or only NaN values):
	// usually a wrong metric name or label, or a target that is not scraped.
	ErrNoData = errors.New("no data")
	// ErrNaN: the query's one sample is NaN (a 0/0 ratio, a stale
	// point). It wraps with ErrNoData (a NaN is no value to measure
	// with), but it is a sample: a stop condition fires on it.
	ErrNaN = errors.New("the value is NaN")
	// ErrManySeries means the query returned more than one series where the
	// runner needs one; the message says how many (see *ManySeriesError).
	ErrManySeries = errors.New("more than one series")
	// ErrBadQuery means Prometheus refused the query text or its parameters
	// (HTTP 400, errorType bad_data), typically a PromQL syntax error; the
	// message carries the parser's.
	ErrBadQuery = errors.New("bad query")
	// ErrUnreachable means no HTTP answer could be had from Prometheus:
	// connection refused or reset, unknown host, TLS failure. The error
	// names the address: `prometheus at http://127.0.0.1:9: unreachable: ...`.
	ErrUnreachable = errors.New("unreachable")
	// ErrTimeout means Prometheus did not answer one attempt within
	// RemoteConfig.Timeout; the error names the address and the timeout.
	ErrTimeout = errors.New("no answer")
	// ErrServer means Prometheus answered with an HTTP error status that is
	// not a query error (5xx, 429, 401, 403, ...) after the retries allowed,
	// or with a redirect to another origin (never followed, not retried).
	ErrServer = errors.New("server error")
)

// QueryError is the error of one query: it names the query text so that a
// scenario author can find the line to fix.
type QueryError struct {
	// Query is the PromQL text as sent.
	Query string
	// Err is the cause: one of the sentinels above, wrapped, or a context error.
	Err error
}

// Error renders `prometheus query "sum(rate(x[5s]))": no data ...`.
func (e *QueryError) Error() string {
	return fmt.Sprintf("prometheus query %q: %v", e.Query, e.Err)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *QueryError) Unwrap() error { return e.Err }

// ManySeriesError says how many series came back where one was needed.
type ManySeriesError struct {
	// N is the number of series returned (at least 2).
	N int
}

// Error renders "3 series; aggregate with sum(...)".
func (e *ManySeriesError) Error() string {
	return fmt.Sprintf("%d series; aggregate with sum(...) or select one with labels", e.N)
}

// Is makes errors.Is(err, ErrManySeries) true.
func (e *ManySeriesError) Is(target error) bool { return target == ErrManySeries }

// errNoSeries is the ErrNoData cause used when the result has no series.
var errNoSeries = fmt.Errorf("%w: the query returned no series (check the metric name and labels, and that the target is scraped)", ErrNoData)
