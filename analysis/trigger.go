package analysis

import "math"

// TriggerCheck says whether a spike pushes the queue wait past the client
// timeout (docs/model.md, "The trap", trigger size). It is the `trigger`
// section of the result document (docs/design.md, "The result document").
type TriggerCheck struct {
	// Valid is true iff (k·ρ − 1)·Δ > τ_out: the spike is a trigger.
	Valid bool `json:"valid"`
	// OverloadS is (k·ρ − 1)·Δ, the wait in seconds the spike builds from
	// rest before any retry; negative when k·ρ < 1.
	OverloadS float64 `json:"overload_s"`
	// TimeoutS is τ_out, the client timeout the overload must exceed.
	TimeoutS float64 `json:"timeout_s"`
	// T0S is τ_out/(k·ρ − 1), seconds after the spike starts when the wait
	// crosses τ_out; nil when k·ρ ≤ 1 (it never does).
	T0S *float64 `json:"t0_s"`
	// Margin is OverloadS / TimeoutS: above 1 the spike is a trigger, and
	// how far above says how robust it is to an overestimated capacity.
	Margin float64 `json:"margin"`
}

// CheckTrigger evaluates the trigger inequality (k·ρ − 1)·Δ > τ_out for a
// k-fold spike of spikeS seconds on a service at utilization rho whose
// clients time out after timeoutS seconds (docs/model.md, "The trap",
// trigger size).
func CheckTrigger(k, rho, spikeS, timeoutS float64) TriggerCheck {
	growth := k*rho - 1
	c := TriggerCheck{
		OverloadS: growth * spikeS,
		TimeoutS:  timeoutS,
	}
	if timeoutS > 0 {
		c.Margin = c.OverloadS / timeoutS
	}
	c.Valid = growth > 0 && c.OverloadS > timeoutS
	if growth > 0 {
		t0 := timeoutS / growth
		c.T0S = &t0
	}
	return c
}

// TriggerTime is t0 = τ_out/(k·ρ − 1), seconds from the spike's start until
// the wait crosses τ_out; +Inf when k·ρ ≤ 1 (docs/model.md, "The trap",
// trigger size).
func TriggerTime(k, rho, timeoutS float64) float64 {
	growth := k*rho - 1
	if growth <= 0 {
		return math.Inf(1)
	}
	return timeoutS / growth
}

// minMultiplier is the infimum of the spike multiples k that trigger with a
// spike of spikeS seconds: (1 + τ_out/Δ)/ρ. Any k strictly above it is a
// trigger (docs/model.md, "The trap", trigger size).
func minMultiplier(rho, spikeS, timeoutS float64) float64 {
	if rho <= 0 || spikeS <= 0 {
		return math.Inf(1)
	}
	return (1 + timeoutS/spikeS) / rho
}

// MinSpike is the infimum of the spike lengths, in seconds, that trigger
// with multiple k: τ_out/(k·ρ − 1); +Inf when k·ρ ≤ 1, for then no spike
// length is a trigger (docs/model.md, "The trap", trigger size).
func MinSpike(k, rho, timeoutS float64) float64 {
	return TriggerTime(k, rho, timeoutS)
}

// stepTriggers reports whether a sustained step to k·λ on an autoscaled
// service with dead time deadTimeS triggers before the first new pod serves:
// the step is a spike of length τ (docs/model.md, "Autoscalers, ceilings
// and admission", dead time), so it triggers iff k·ρ − 1 > τ_out/τ.
func stepTriggers(k, rho, deadTimeS, timeoutS float64) bool {
	return CheckTrigger(k, rho, deadTimeS, timeoutS).Valid
}
