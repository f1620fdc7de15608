package runner

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/trigger-test/trigger/convert"
)

// Ready is what comes before a campaign's cell or a repeated trial.
type Ready struct {
	// Test is the scenario converted; Baseline the first attempts per
	// second of the test about to run (the probe takes a tenth of capacity
	// at most half of it).
	Test     *convert.Test
	Baseline float64
	// Rest is the pause without load first; none when First.
	Rest  time.Duration
	First bool
	// Transport is the runs' (nil: the driver's own); AbortFile the
	// brake's; Logf, when set, is told the probe's rate.
	Transport http.RoundTripper
	AbortFile string
	Logf      func(format string, args ...any)
	// Who names the caller in the log ("campaign", "trials").
	Who string
}

// NotBackError is a service the health probe did not see back within its
// limit: the caller's series fails, no brake or interrupt stands for it.
type NotBackError struct{ Err error }

func (e *NotBackError) Error() string { return e.Err.Error() }
func (e *NotBackError) Unwrap() error { return e.Err }

// Wait looks at the abort file, rests (unless First), then probes until
// the service is back (HealthProbe, at most convert.ProbeLimit), looking
// at the abort file every quarter second. A brake is a *Error
// (KindStopped), an interrupt ctx's error or a *Error, a service that did
// not come back a *NotBackError; nil when the service is back.
func (r Ready) Wait(ctx context.Context) error {
	aborted := func() error { return AbortFileError(r.AbortFile) }
	if err := aborted(); err != nil {
		return err
	}
	if !r.First {
		if err := Rest(ctx, r.Rest, aborted); err != nil {
			return err
		}
	}
	s := r.Test.Scenario
	pr := NewHealthProbe(r.Test, s.Service.Capacity, r.Baseline, convert.ProbeLimit(s))
	if r.Logf != nil {
		r.Logf("%s: probing at %g/s until the first-attempt success ratio holds at %.3g for %s", r.Who, pr.Rate(), pr.SuccessRatio, pr.Hold)
	}
	err := pr.Wait(ctx, r.Transport, aborted)
	var re *Error
	if err == nil || ctx.Err() != nil || errors.As(err, &re) {
		return err
	}
	return &NotBackError{Err: err}
}
