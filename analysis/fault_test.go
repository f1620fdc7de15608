package analysis

import (
	"math"
	"testing"
)

// The capacity trigger's closed forms (docs/model.md, "A capacity
// trigger") on the e2e case: a drop to 40 % for 10 s at ρ = 0.6, τ = 1 s.
func TestFaultClosedForms(t *testing.T) {
	if c := FaultTrigger(0.4, 0.6, 10, 1); !c.Valid || math.Abs(c.OverloadS-5) > 1e-9 || math.Abs(Value(c.T0S)-2) > 1e-9 {
		t.Errorf("FaultTrigger = %+v; want (λ/C′ − 1)·Δ = 5 s, t0 = 2 s", c)
	}
	for _, tc := range []struct {
		a, want float64
	}{
		{1, 5},           // w′ = 1 + 0.5·8 = 5 s of C′, 2 s of C: (2 − 1)/0.4 + 1/0.4
		{2, math.Inf(1)}, // A·ρ = 1.2 and 6.8 s left above the patience
	} {
		if got := faultRecovery(tc.a, 0.6, 0.4, 10, 1); math.Abs(got-tc.want) > 1e-9 && got != tc.want {
			t.Errorf("faultRecovery(A = %g) = %g; want %g", tc.a, got, tc.want)
		}
	}
	// Left below the patience when the capacity comes back: recovers even
	// at A·ρ ≥ 1.
	if got := faultRecovery(2, 0.6, 0.55, 3, 1); math.IsInf(got, 0) {
		t.Errorf("a short fault whose wait is below the patience once capacity is back: %g", got)
	}
}

// The smallest loss and the shortest fault that trigger are the
// boundaries of FaultTrigger, for any ρ, Δ and patience.
func TestFaultBoundaries(t *testing.T) {
	for _, rho := range []float64{0.2, 0.5, 0.9} {
		for _, d := range []float64{2, 10, 60} {
			for _, p := range []float64{0.5, 1, 5} {
				f := MaxFaultCapacity(rho, d, p)
				if FaultTrigger(f*1.001, rho, d, p).Valid || !FaultTrigger(f*0.999, rho, d, p).Valid {
					t.Errorf("ρ %g Δ %g p %g: MaxFaultCapacity %g is not the boundary", rho, d, p, f)
				}
				m := MinFault(f*0.9, rho, p)
				if FaultTrigger(f*0.9, rho, m*0.999, p).Valid || !FaultTrigger(f*0.9, rho, m*1.001, p).Valid {
					t.Errorf("ρ %g p %g f %g: MinFault %g is not the boundary", rho, p, f*0.9, m)
				}
			}
		}
	}
	if !math.IsInf(MinFault(0.7, 0.6, 1), 1) {
		t.Error("C′ above λ: some fault triggers")
	}
}
