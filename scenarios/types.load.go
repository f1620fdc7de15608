package scenarios

import "time"

// LoadProfile is the demand the test offers (block "load"): baseline for
// Warmup, Spike.Multiplier × baseline for Spike.Duration, then baseline for
// Observe. (The type cannot be named Load: that is the function that reads
// a scenario file. The Scenario field is still Scenario.Load.)
type LoadProfile struct {
	Baseline float64       // λ, first attempts per second; required, > 0
	Warmup   time.Duration // baseline before the spike; default 20s
	Spike    Spike
	Observe  time.Duration // horizon after the spike ends; default 3m
}

// Spike is the overload (block "load.spike"); required.
type Spike struct {
	Multiplier float64       // k > 1
	Duration   time.Duration // Δ > 0
}
