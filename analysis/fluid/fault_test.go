package fluid

import (
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The fluid model's capacity drop agrees with the closed form: at ρ = 0.6
// a drop to 40 % for 10 s recovers in 5 s without retries, and with one
// retry (A·ρ = 1.2) is trapped.
func TestFluidCapacityDrop(t *testing.T) {
	for _, tc := range []struct {
		retries int
		trapped bool
	}{{0, false}, {1, true}} {
		res, err := Simulate(Config{
			Stages:        analysis.SpikeSchedule(120, 1, 20, 10, 120),
			CapacityPerS:  200,
			TimeoutS:      1,
			RetryLagS:     0.01,
			Retry:         Retry{MaxRetries: tc.retries},
			FaultCapacity: 0.4, FaultStartS: 20, FaultEndS: 30,
			SpikeStartS: 20, SpikeEndS: 30,
		})
		if err != nil {
			t.Fatal(err)
		}
		trapped := res.Verdict == analysis.VerdictTrapped
		if trapped != tc.trapped {
			t.Errorf("R = %d: verdict %s", tc.retries, res.Verdict)
		}
		if !tc.trapped && math.Abs(res.RecoveryS-5) > 0.5 {
			t.Errorf("R = 0: recovered in %v s; the closed form says 5 s", res.RecoveryS)
		}
	}
}
