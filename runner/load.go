package runner

import (
	"context"
	"net/http"
	"time"

	"github.com/trigger-test/trigger/loadgen"
)

// load is what the runner drives: one in-process driver (inProcess) or
// the coordinator of agents spread over processes or machines
// (*fleet.Coordinator). Both count time from the moment the load started.
type load interface {
	// Run drives the schedule until it ends or ctx does; a lost agent
	// makes it return an error wrapping fleet.ErrAgentLost.
	Run(ctx context.Context) error
	// Elapsed is the load's clock: time since it started (0 before).
	Elapsed() time.Duration
	// TimelineSince returns the completed seconds from index n on.
	TimelineSince(n int) []loadgen.Second
	// Cohorts returns the cohorts from index n on.
	Cohorts(n int) []loadgen.Cohort
	// Replan replaces the rest of the schedule and returns the instant of
	// the load's clock from which the new stages count.
	Replan(stages []loadgen.Stage) time.Duration
	// Bounds are the bounds on attempts in flight.
	Bounds() loadgen.Bounds
	// Handler serves the load's trigger_* metrics.
	Handler() http.Handler
}

// inProcess is one loadgen.Driver in the runner's process.
type inProcess struct{ *loadgen.Driver }

// Replan replaces the schedule from now.
func (p inProcess) Replan(stages []loadgen.Stage) time.Duration {
	p.Driver.Replan(stages)
	return p.Elapsed()
}
