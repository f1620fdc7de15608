package convert

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/scenarios"
)

// A run's longest (a campaign's cell, a repeated trial): warmup, spike, observe and on_trap's observation
// within max_duration; for a fault, its Δ once (the spike's place), its
// start command's bound before the hold (within the run's bound: its
// max_duration or the horizon and the schedule's slack) and its stop
// command's after.
func TestRunLength(t *testing.T) {
	s := func(maxDur time.Duration, fault bool) *scenarios.Scenario {
		sc := &scenarios.Scenario{MaxDuration: maxDur,
			Load:   scenarios.LoadProfile{Warmup: 3 * time.Second, Observe: 60 * time.Second, Spike: scenarios.Spike{Multiplier: 3, Duration: 5 * time.Second}},
			OnTrap: &scenarios.OnTrap{Observe: 40 * time.Second}}
		if fault {
			sc.Load.Spike = scenarios.Spike{Multiplier: 1, Duration: 5 * time.Second}
			sc.Fault = &scenarios.Fault{Duration: 5 * time.Second, Timeout: 7 * time.Second, Capacity: 0.5}
		}
		return sc
	}
	for _, c := range []struct {
		name string
		s    *scenarios.Scenario
		want time.Duration
	}{
		{"spike", s(0, false), 108 * time.Second},
		{"spike within max_duration", s(100*time.Second, false), 100 * time.Second},
		{"fault", s(0, true), (108 + 7 + 7) * time.Second},
		{"fault within max_duration", s(2*time.Minute, true), (108 + 7 + 7) * time.Second},
		{"fault's start cut by max_duration", s(110*time.Second, true), (110 + 7) * time.Second},
	} {
		if got := RunLength(c.s); got != c.want {
			t.Errorf("%s: %s; want %s", c.name, got, c.want)
		}
	}
	// With no max_duration a fault's start is cut at the horizon and the
	// schedule's slack.
	long := s(0, true)
	long.Fault.Timeout = 5 * time.Minute
	if got, want := RunLength(long), 108*time.Second+ScheduleSlack+5*time.Minute; got != want {
		t.Errorf("slow fault: %s; want %s", got, want)
	}
}
