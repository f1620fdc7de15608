package convert

import (
	"time"

	"github.com/trigger-test/trigger/scenarios"
)

// RunLength is the longest one run of s can take (a campaign's cell, a
// repeated trial): warmup, spike, observe and
// on_trap's observation, or the scenario's max_duration when shorter. A
// fault's Δ is counted once, as the spike's duration (scenarios puts it
// in the spike's place); but its hold starts when its start command ends,
// so that command's bound (fault.timeout) is added, within the run's own
// bound (max_duration, or the horizon and ScheduleSlack when
// none), and its stop command's after it: a run waits for the fault to be
// put back.
func RunLength(s *scenarios.Scenario) time.Duration {
	d := s.Load.Warmup + s.Load.Spike.Duration + s.Load.Observe
	if s.OnTrap != nil {
		d += s.OnTrap.Observe
	}
	bound := s.MaxDuration
	if f := s.Fault; f != nil {
		if bound <= 0 {
			bound = d + ScheduleSlack
		}
		d += f.Timeout
	}
	if bound > 0 && bound < d {
		d = bound
	}
	if s.Fault != nil {
		d += s.Fault.Timeout
	}
	return d
}
