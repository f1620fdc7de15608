package scenarios

import "time"

// Recovery defines when a real run counts as recovered (block "recovery").
type Recovery struct {
	// SuccessRatio is the first-attempt success ratio the service must get
	// back above; default 0.99.
	SuccessRatio float64
	// Hold is how long the ratio must stay above SuccessRatio; default 10s.
	Hold time.Duration
}

// OnTrap is what a run does once it has judged the service trapped (block
// "on_trap"), and how long it then watches for the service to come back.
type OnTrap struct {
	// Action is "drop" (demand to zero), "rate" (demand to Rate) or
	// "command" (run Command, keep baseline demand).
	Action  string
	Rate    float64       // first attempts per second for Action "rate"
	Command []string      // argv for Action "command"
	Observe time.Duration // how long to watch after the action; default 2m
}

// Gate is the release gate (block "gate").
type Gate struct {
	MaxRecovery time.Duration // recovery budget; zero means none
	AllowTrap   bool          // default false: a trapped service fails the gate
	// MaxAmplification fails the gate when the measured A exceeds it; zero means none.
	MaxAmplification float64
}
