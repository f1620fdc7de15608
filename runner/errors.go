package runner

import (
	"errors"
	"fmt"
)

// Kind says what went wrong with a run, so the command line can map it to
// its exit code (docs/design.md, "CLI and exit codes").
type Kind int

// The kinds of run errors.
const (
	// KindUsage: the scenario or the request is wrong (exit 2), e.g. a
	// target host that is not allowlisted. Nothing was sent.
	KindUsage Kind = iota + 1
	// KindInconclusive: the run could not judge the service (exit 3): data
	// missing, or the service already failing at baseline.
	KindInconclusive
	// KindHarness: the harness or its infrastructure failed (exit 4):
	// Prometheus unreachable, a scrape target down, the output folder not writable.
	KindHarness
	// KindInterrupted: a signal stopped the run (exit 130).
	KindInterrupted
	// KindStopped: a brake stopped the run (exit 5): a stop condition fired
	// or could not be evaluated, or the abort file appeared.
	KindStopped
)

// Error is a run that did not reach a verdict, with its kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Sentinel errors (test with errors.Is).
var (
	// ErrNotAllowed: the target's host is not in allow_hosts.
	ErrNotAllowed = errors.New("target host not allowed")
	// ErrBaselineFailing: attempts failed during warmup, before any spike.
	ErrBaselineFailing = errors.New("the service already fails at baseline")
	// ErrTargetRefused: every connection to the target failed before any
	// response during warmup (refused, or reset or closed at once).
	ErrTargetRefused = errors.New("the target refused connections")
	// ErrNoVerdict: the run ended before its signals could tell whether the
	// service recovers, is trapped or is metastable (their delays, a trend
	// not significant within the observation).
	ErrNoVerdict = errors.New("the signals could not tell")
	// ErrInterrupted: the run was stopped by a signal.
	ErrInterrupted = errors.New("interrupted")
	// ErrStopped: a brake stopped the run (stop_when, the abort file).
	ErrStopped = errors.New("stopped by a brake")
	// ErrMetricsMissing: the service's metrics were missing for too much of
	// the judged window to stand behind a verdict.
	ErrMetricsMissing = errors.New("metrics missing")
	// ErrAgentLost: an agent of a spread run stopped reporting, exited or
	// failed; the merged timeline lacks its share, so no verdict stands.
	ErrAgentLost = errors.New("an agent was lost")
	// ErrClientErrors: the failures after the spike were mostly client
	// errors (4xx other than 429): the requests' fault, not the service's.
	ErrClientErrors = errors.New("the failures were client errors")
	// ErrTargetTLS: the preflight's TLS handshake with the target failed
	// for a reason of configuration (an untrusted CA, a name the
	// certificate does not cover, a client certificate refused).
	ErrTargetTLS = errors.New("the target's TLS handshake failed")
	// ErrCredentialsRefused: the target answered 401 or 403, during the
	// warmup or for most failed first attempts after the spike: the
	// requests' credentials, not the service's capacity.
	ErrCredentialsRefused = errors.New("credentials refused")
	// ErrFaultStart: the fault's start command failed or timed out (its
	// stop command then ran).
	ErrFaultStart = errors.New("the fault did not start")
	// ErrOutExists: the output folder holds a previous run.
	ErrOutExists = errors.New("the output folder is not empty")
)

func failf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}
