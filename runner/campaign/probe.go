package campaign

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/runner"
)

// probe is the light load that checks a service is back before a cell:
// first attempts at a tenth of capacity (at most half the cell's
// baseline, at least two a second) with the clients' timeout and no
// retries, so that it cannot keep a failed service failed.
type probe struct {
	cfg          loadgen.Config
	successRatio float64       // the recovery rule's threshold
	hold         time.Duration // how long it must hold
	limit        time.Duration // the longest the probe waits for it
}

// newProbe is the probe for a cell of test at first-attempt rate
// baseline.
func newProbe(test *convert.Test, capacity, baseline float64, limit time.Duration) probe {
	cfg := test.Driver
	rate := max(2, min(capacity/10, baseline/2))
	cfg.Stages = []loadgen.Stage{loadgen.Constant(limit, rate)}
	cfg.Retry = retry.Policy{}
	cfg.Tracers = nil
	cfg.Registerer = nil
	s := test.Scenario
	return probe{cfg: cfg, successRatio: s.Recovery.SuccessRatio, hold: s.Recovery.Hold, limit: limit}
}

// rate is the probe's first attempts per second.
func (p probe) rate() float64 { return p.cfg.Stages[0].From }

// wait drives the probe until its seconds meet the runs' recovery rule
// (infer.FindRecovery: the first-attempt success ratio at or above the
// threshold for hold seconds; seconds without a completed first attempt,
// or lost to the driver itself, count neither way), then nil; or until
// limit has passed, or ctx ends.
func (p probe) wait(ctx context.Context, transport http.RoundTripper, aborted func() error) error {
	cfg := p.cfg
	cfg.Transport = transport
	d, err := loadgen.NewDriver(cfg)
	if err != nil {
		return &runner.Error{Kind: runner.KindHarness, Err: fmt.Errorf("probe: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, p.limit+time.Second)
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
					p.limit, p.rate(), p.successRatio, p.hold)
			}
			return ctx.Err()
		case err := <-done:
			done <- err
			return fmt.Errorf("the service was not back within %s (probe ended: %v)", p.limit, err)
		case <-tick.C:
		}
		if err := aborted(); err != nil {
			return err
		}
		rows = append(rows, convert.DriverRows(d.TimelineSince(len(rows)))...)
		if _, ok := infer.FindRecovery(rows, 0, p.successRatio, p.hold.Seconds()); ok {
			return nil
		}
	}
}
