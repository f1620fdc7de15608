package analysis

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// recoveryPoint draws a recovering configuration: a trigger with A·ρ < 1.
func recoveryPoint(t *rapid.T) (a, rho, k, spike, tau float64) {
	a = rapid.Float64Range(1, 5).Draw(t, "A")
	rho = rapid.Float64Range(0.05, 0.95/a).Draw(t, "rho")
	tau = rapid.Float64Range(0.2, 30).Draw(t, "tau")
	k = rapid.Float64Range(1.2/rho, 20/rho).Draw(t, "k")
	spike = rapid.Float64Range(1.2*MinSpike(k, rho, tau), 2000).Draw(t, "spike")
	return
}

// The closed-form recovery time rises with A, ρ, k and Δ.
func TestPropertyRecoveryMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, rho, k, spike, tau := recoveryPoint(t)
		base := RecoveryTime(a, rho, k, spike, tau)
		grow := rapid.Float64Range(1.0001, 1.05).Draw(t, "grow")
		for name, v := range map[string]float64{
			"A":   RecoveryTime(math.Min(a*grow, 0.999/rho), rho, k, spike, tau),
			"rho": RecoveryTime(a, math.Min(rho*grow, 0.999/a), k, spike, tau),
			"k":   RecoveryTime(a, rho, k*grow, spike, tau),
			"Δ":   RecoveryTime(a, rho, k, spike*grow, tau),
		} {
			if v < base {
				t.Fatalf("raising %s lowered T_rec from %v to %v", name, base, v)
			}
		}
		// Inverting the recovery time gives back A.
		if got := amplificationFromRecovery(base, rho, k, spike, tau); math.Abs(got-a) > 1e-6*a {
			t.Fatalf("A from T_rec = %v, want %v", got, a)
		}
	})
}
