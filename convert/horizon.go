package convert

import "time"

// ScheduleSlack is how long the driver's schedule outlasts the horizon, so
// that the run, not the end of the schedule, decides when it is over.
const ScheduleSlack = time.Minute

// AfterSpike is how long a run watches after the spike when nothing ends it
// early: the observation, and on_trap's own.
func (r Run) AfterSpike() time.Duration {
	d := r.Observe
	if r.OnTrap != nil {
		d += r.OnTrap.Observe
	}
	return d
}

// Horizon is when a run that nothing ends early is over, from the start of
// the load: warmup, spike, and AfterSpike.
func (r Run) Horizon() time.Duration {
	return r.Warmup + r.SpikeDuration + r.AfterSpike()
}
