package convert

import (
	"time"

	"github.com/trigger-test/trigger/scenarios"
)

// ProbeLimit is how long a health probe (runner.HealthProbe, before a
// campaign's cell or a repeated trial) waits for the service: the longer
// of on_trap's observation (the time a test gives the way back) and the
// load's (a slow recovery may still be under way when a test ends).
func ProbeLimit(s *scenarios.Scenario) time.Duration {
	limit := scenarios.DefaultTrapObserve
	if s.OnTrap != nil && s.OnTrap.Observe > 0 {
		limit = s.OnTrap.Observe
	}
	return max(limit, s.Load.Observe)
}
