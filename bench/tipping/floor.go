package main

import (
	"context"
	"fmt"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// measureFloor is L₀, the latency floor of the loopback path (driver,
// HTTP, specimen's handler and timers) at rate attempts per second: the
// median of three one-second median latencies of attempts to a specimen
// whose service takes 10 µs and never queues (three, so that one second
// of a busy machine does not set it). The collapse law's patience is the wait
// the service may take, τ_out − L₀ (docs/model.md, "Latency laws and what
// sustains a trap"), so the clients' timeout is T + L₀ for θ = μ·T.
func measureFloor(ctx context.Context, rate float64) (time.Duration, error) {
	srv, err := specimen.StartLoopback(ctx, specimen.Config{Pods: 1, PodRate: 100000, QueueMode: vocab.QueueShared})
	if err != nil {
		return 0, err
	}
	defer srv.Stop()
	d, err := loadgen.NewDriver(loadgen.Config{
		Request:  loadgen.Request{Method: "GET", URL: srv.URL + "/work"},
		Stages:   []loadgen.Stage{loadgen.Constant(4*time.Second, rate)},
		Arrivals: vocab.Poisson, Seed: 1, Timeout: time.Second,
	})
	if err != nil {
		return 0, fmt.Errorf("floor: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := d.Run(rctx); err != nil {
		return 0, fmt.Errorf("floor: %w", err)
	}
	// From the second second on: connections are open, nothing is starting.
	tl := d.Timeline()
	var p50 []float64
	for _, sec := range tl[min(1, len(tl)):min(4, len(tl))] {
		if sec.Latency.Count > 0 {
			p50 = append(p50, sec.Latency.P50)
		}
	}
	if len(p50) == 0 {
		return 0, fmt.Errorf("floor: no attempts answered")
	}
	return time.Duration(median(p50) * float64(time.Second)), nil
}
