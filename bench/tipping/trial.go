package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
)

// outcome is one trial: whether the wait passed the collapse wait within
// the horizon, and when (seconds of wall time from the first attempt).
type outcome struct {
	Collapsed bool
	AtS       float64
	// MaxDepth is the longest queue seen, requests.
	MaxDepth int64
	// Stalled is how long the driver's process did not run before the
	// trial ended, seconds (loadgen.Second.Stalled): time the driver lost
	// is never the service's failure (docs/safety.md), so such a trial is
	// void.
	Stalled float64
}

// pollEvery is how often a trial reads the specimen's queue.
const pollEvery = 5 * time.Millisecond

// trial starts a fresh specimen on loopback, offers it load first attempts
// per second with trigger's driver for the horizon, and watches its queue:
// collapsed as soon as it holds the collapse depth. The driver is stopped
// at the collapse or at the horizon (attempts in flight cancelled), the
// specimen afterwards; both are bounded by ctx.
func trial(ctx context.Context, s setup, load float64, seed uint64) (outcome, error) {
	srv, err := specimen.StartLoopback(ctx, s.server(seed))
	if err != nil {
		return outcome{}, err
	}
	defer srv.Stop()
	d, err := s.driver(srv.URL, load, seed)
	if err != nil {
		return outcome{}, fmt.Errorf("driver: %w", err)
	}
	runCtx, stop := context.WithTimeout(ctx, s.times(s.Horizon)+5*time.Second)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- d.Run(runCtx) }()

	var out outcome
	depth := s.collapseDepth()
	horizon := s.times(s.Horizon)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			stop()
			<-ran
			return out, ctx.Err()
		case err := <-ran:
			// The schedule ended and every request with it: no collapse.
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return out, fmt.Errorf("driver: %w", err)
			}
			out.Stalled = stalledBefore(d.Timeline(), horizon)
			return out, nil
		case <-tick.C:
		}
		st := srv.Server.Stats()
		q := st.QueueDepth + st.InService
		out.MaxDepth = max(out.MaxDepth, q)
		el := d.Elapsed()
		if q >= depth {
			out.Collapsed, out.AtS = true, el.Seconds()
		}
		if out.Collapsed || el >= horizon {
			out.Stalled = stalledBefore(append(d.TimelineSince(0), d.Live()), min(el, horizon))
			stop()
			<-ran
			return out, nil
		}
	}
}

// stalledBefore is how long the driver stalled in the seconds of rows that
// begin before end, seconds. Seconds from the horizon on may be the
// driver's wind-down, which its stall detector sees as a stall.
func stalledBefore(rows []loadgen.Second, end time.Duration) float64 {
	var s float64
	for _, sec := range rows {
		if time.Duration(sec.Index)*time.Second < end {
			s += sec.Stalled
		}
	}
	return s
}
