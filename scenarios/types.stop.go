package scenarios

import "time"

// StopCondition is one brake of a run (block `stop_when "NAME"`): a PromQL
// expression evaluated every second from the preflight on; the run stops
// its load when the expression returns a non-empty result, or when it
// cannot be evaluated (a brake that cannot be checked is not a brake).
type StopCondition struct {
	// Name is the block's label, unique among the scenario's conditions.
	Name string
	// Query is the PromQL expression; any sample in its result fires it
	// (write "burn_rate > 10", not "burn_rate").
	Query string
	// Address is where Query is evaluated: "" for the run's own
	// Prometheus (embedded or remote), else the base URL of another
	// Prometheus HTTP API.
	Address string
	// Timeout bounds one evaluation; default 2s. An evaluation that does
	// not answer within it stops the run.
	Timeout time.Duration
	// Auth and TLS are for Address (nil: none); with Address "" the run's
	// Prometheus block's own are used.
	Auth *PrometheusAuth
	TLS  *PrometheusTLS
}

// SensitiveValue is what a sensitive variable's value reads wherever the
// scenario is reported.
const SensitiveValue = "(sensitive)"
