package runner

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/retry"
)

// HealthProbe is the light load that checks a service is back before a
// campaign's cell or a repeated trial: first attempts at a tenth of
// capacity (at most half the test's baseline, at least two a second) with
// the clients' timeout and no retries, so that it cannot keep a failed
// service failed.
type HealthProbe struct {
	cfg          loadgen.Config
	SuccessRatio float64       // the recovery rule's threshold
	Hold         time.Duration // how long it must hold
	Limit        time.Duration // the longest the probe waits for it
}

// NewHealthProbe is the probe before a test of test at first-attempt rate
// baseline (per second), on a service of capacity (per second), waiting at
// most limit.
func NewHealthProbe(test *convert.Test, capacity, baseline float64, limit time.Duration) HealthProbe {
	cfg := test.Driver
	rate := max(2, min(capacity/10, baseline/2))
	cfg.Stages = []loadgen.Stage{loadgen.Constant(limit, rate)}
	cfg.Retry = retry.Policy{}
	cfg.Tracers = nil
	cfg.Registerer = nil
	s := test.Scenario
	return HealthProbe{cfg: cfg, SuccessRatio: s.Recovery.SuccessRatio, Hold: s.Recovery.Hold, Limit: limit}
}

// Rate is the probe's first attempts per second.
func (p HealthProbe) Rate() float64 { return p.cfg.Stages[0].From }

// Wait drives the probe until its seconds meet the runs' recovery rule
// (infer.FindRecovery: the first-attempt success ratio at or above the
// threshold for Hold seconds; seconds without a completed first attempt,
// or lost to the driver itself, count neither way), then nil; or until
// Limit has passed, or ctx ends.
func (p HealthProbe) Wait(ctx context.Context, transport http.RoundTripper, aborted func() error) error {
	cfg := p.cfg
	cfg.Transport = transport
	d, err := loadgen.NewDriver(cfg)
	if err != nil {
		return &Error{Kind: KindHarness, Err: fmt.Errorf("probe: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, p.Limit+time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// The probe's seconds, judged by the runs' own recovery rule; at most
	// limit of them.
	var rows []analysis.TimelineRow
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("the service was not back within %s: the first-attempt success ratio of a %g/s probe never held at %.3g for %s",
					p.Limit, p.Rate(), p.SuccessRatio, p.Hold)
			}
			return ctx.Err()
		case err := <-done:
			done <- err
			return fmt.Errorf("the service was not back within %s (probe ended: %v)", p.Limit, err)
		case <-tick.C:
		}
		if err := aborted(); err != nil {
			return err
		}
		rows = append(rows, convert.DriverRows(d.TimelineSince(len(rows)))...)
		if _, ok := infer.FindRecovery(rows, 0, p.SuccessRatio, p.Hold.Seconds()); ok {
			return nil
		}
	}
}

// AbortFileError is the abort file's brake between runs: a stopped error
// once the file exists, nil when it does not or when file is empty.
func AbortFileError(file string) error {
	if file == "" {
		return nil
	}
	if _, err := os.Stat(file); err != nil {
		return nil
	}
	return &Error{Kind: KindStopped, Err: fmt.Errorf("%w: the abort file %s exists", ErrStopped, file)}
}

// Rest waits d, until ctx ends, or until aborted says so (looked at every
// quarter second): the pause between a campaign's cells or repeated
// trials.
func Rest(ctx context.Context, d time.Duration, aborted func() error) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		case <-tick.C:
			if err := aborted(); err != nil {
				return err
			}
		}
	}
}
