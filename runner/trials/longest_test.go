package trials

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// A series' longest is n runs at their longest (a fault's Δ counted once,
// in the spike's place, with its commands' bounds) with a probe before
// each and a rest between them; it counted a fault's Δ twice.
func TestLongestCountsAFaultOnce(t *testing.T) {
	s := &scenarios.Scenario{
		Load:   scenarios.LoadProfile{Warmup: 3 * time.Second, Observe: 60 * time.Second, Spike: scenarios.Spike{Multiplier: 1, Duration: 5 * time.Second}},
		OnTrap: &scenarios.OnTrap{Observe: 40 * time.Second},
		Fault:  &scenarios.Fault{Duration: 5 * time.Second, Timeout: 7 * time.Second, Capacity: 0.5}}
	test := &convert.Test{Scenario: s}
	run := (3 + 5 + 60 + 40 + 7 + 7) * time.Second
	if got, want := Longest(test, 3, 10*time.Second), 3*(run+convert.ProbeLimit(s))+2*10*time.Second; got != want {
		t.Errorf("3 trials: %s, want %s", got, want)
	}
}
