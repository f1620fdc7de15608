package convert

import (
	"time"

	"github.com/trigger-test/trigger/scenarios"
)

// ScheduleSlack is how long the driver's schedule outlasts the horizon, so
// that the run, not the end of the schedule, decides when it is over.
const ScheduleSlack = time.Minute

// AfterSpike is how long a run watches after the spike when nothing ends it
// early: the observation, and on_trap's own.
func AfterSpike(s *scenarios.Scenario) time.Duration {
	d := s.Load.Observe
	if s.OnTrap != nil {
		d += s.OnTrap.Observe
	}
	return d
}

// Horizon is when a run that nothing ends early is over, from the start of
// the load: warmup, spike, and AfterSpike.
func Horizon(s *scenarios.Scenario) time.Duration {
	return s.Load.Warmup + s.Load.Spike.Duration + AfterSpike(s)
}

// MaxDuration is the scenario's hard limit on a run: max_duration, or the
// horizon and the schedule's slack.
func MaxDuration(s *scenarios.Scenario) time.Duration {
	if s.MaxDuration > 0 {
		return s.MaxDuration
	}
	return Horizon(s) + ScheduleSlack
}
