package vocab

import "time"

// Tracers configures wait tracers (a scenario's client.tracers): a
// low-rate stream of probe attempts with a long timeout and no retries,
// tagged X-Attempt: 0, whose latency measures the queue wait even while
// every normal attempt times out. A scenario fills in the defaults; the
// driver takes a zero field as its default too.
type Tracers struct {
	// Rate is the probes per second, evenly spaced: DefaultTracerRate (2)
	// when zero, at most MaxTracerRate (100).
	Rate float64
	// Timeout is one probe's patience: DefaultTracerTimeout (60 s) when
	// zero.
	Timeout time.Duration
}
