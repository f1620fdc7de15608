package analysis

import "math"

// A capacity trigger (docs/model.md, "A capacity trigger"): the service's
// capacity drops to C′ = f·C for Δ seconds at baseline demand λ. While the
// fault holds the service is at utilization ρ/f, so the fault is a spike
// of multiple 1/f on capacity C′: the wait, in seconds of C′, grows at
// ρ/f − 1 until it crosses the patience and at A·ρ/f − 1 after. When the
// capacity comes back the same backlog is f times the wait.

// FaultTrigger is the trigger check of a fault: (λ/C′ − 1)·Δ = (ρ/f − 1)·Δ
// > patience, its overload the wait in seconds of C′ the fault builds
// before any retry, t0 when that wait crosses the patience.
func FaultTrigger(f, rho, faultS, patienceS float64) TriggerCheck {
	return CheckTrigger(1/f, rho, faultS, patienceS)
}

// faultPeakWait is the wait in seconds when the capacity comes back, in
// seconds of the restored capacity C: f times the wait in seconds of C′ at
// the fault's end (peakWait with k = 1/f).
func faultPeakWait(a, rho, f, faultS, patienceS float64) float64 {
	return f * peakWait(a, rho, 1/f, faultS, patienceS)
}

// faultRecovery is the time from the fault's end until the wait is gone,
// seconds: the wait left falls at 1 − A·ρ while above the patience and at
// 1 − ρ below it; +Inf when it is above the patience and A·ρ ≥ 1 (trapped).
func faultRecovery(a, rho, f, faultS, patienceS float64) float64 {
	if rho >= 1 {
		return math.Inf(1)
	}
	w := faultPeakWait(a, rho, f, faultS, patienceS)
	if w <= patienceS {
		return w / (1 - rho)
	}
	if trapped(a, rho) {
		return math.Inf(1)
	}
	return projectRecovery(0, w, a*rho-1, patienceS, rho)
}

// MaxFaultCapacity is the largest C′/C that triggers with a fault of
// faultS seconds, ρ·Δ/(patience + Δ): any capacity left below it triggers,
// so the smallest loss that does is 1 − MaxFaultCapacity.
func MaxFaultCapacity(rho, faultS, patienceS float64) float64 {
	if faultS <= 0 {
		return 0
	}
	return rho * faultS / (patienceS + faultS)
}

// MinFault is the shortest fault, in seconds, that triggers at C′/C = f:
// patience/(ρ/f − 1); +Inf when ρ ≤ f (the capacity left still serves λ).
func MinFault(f, rho, patienceS float64) float64 {
	return TriggerTime(1/f, rho, patienceS)
}

// FaultRecoveryAfter is faultRecovery with t0 given: the wait crossed the
// patience t0 seconds after the fault began (t0 < Δ), grew at A·ρ/f − 1
// in seconds of C′ for the rest of the fault, and is f times that when
// the capacity comes back. NaN when t0 is not within the fault.
func FaultRecoveryAfter(a, rho, f, faultS, t0, patienceS float64) float64 {
	if rho >= 1 {
		return math.Inf(1)
	}
	if !(t0 >= 0 && t0 < faultS) || !(f > 0) {
		return math.NaN()
	}
	w := f * (patienceS + (a*rho/f-1)*(faultS-t0))
	if w <= patienceS {
		return math.Max(0, w) / (1 - rho)
	}
	if trapped(a, rho) {
		return math.Inf(1)
	}
	return projectRecovery(0, w, a*rho-1, patienceS, rho)
}
