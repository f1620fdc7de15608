package analysis

import "math"

// lawStepsPerSpike is the fluid's steps over a spike: fine enough that the
// peak is within a fraction of a percent of the exact solution.
const lawStepsPerSpike = 2000

// CheckTriggerUnder says whether a k-fold spike of spikeS seconds on a
// demand of lambda per second pushes a service of law l past the patience
// patienceS in front of it (docs/model.md, "Latency laws and what sustains
// a trap").
//
// Under the queue law it is CheckTrigger at ρ = λ/C with the wait's
// patience, patienceS − L₀: (k·ρ − 1)·Δ > τ_out − L₀. Under concurrency
// the requests in flight follow dN/dt = λ(t) − X(N) from the equilibrium
// at λ; the spike triggers when N passes N_τ, where the latency reaches
// patienceS, which can happen with k·λ below C. OverloadS is then the
// wait N/C at the spike's end (the latency above the floor), TimeoutS the
// wait's patience, T0S when N passed N_τ.
func CheckTriggerUnder(l LatencyLaw, lambda, k, spikeS, patienceS float64) TriggerCheck {
	wait := l.WaitPatienceS(patienceS)
	c := l.CapacityPerS
	if l.Queue() || !(c > 0) {
		return CheckTrigger(k, lambda/c, spikeS, wait)
	}
	peak, t0 := concurrencyPeak(l, lambda, k, spikeS, patienceS)
	check := TriggerCheck{OverloadS: peak / c, TimeoutS: wait}
	if wait > 0 {
		check.Margin = check.OverloadS / wait
	}
	check.Valid = check.OverloadS > wait
	if !math.IsNaN(t0) {
		check.T0S = Num(t0)
	}
	return check
}

// concurrencyPeak integrates dN/dt = k·λ − X(N) over a spike of spikeS
// seconds from the equilibrium at λ, by Euler steps, and returns N at the
// spike's end (its peak: after it X(N) > λ and N falls) and when N first
// passed N_τ (NaN if it did not). A demand at or above C has no
// equilibrium: the service is past N_τ before the spike (peak +Inf, t0 0).
func concurrencyPeak(l LatencyLaw, lambda, k, spikeS, patienceS float64) (peak, t0 float64) {
	n := l.Equilibrium(lambda)
	nTau := l.InFlightAtTimeout(patienceS)
	if math.IsInf(n, 1) || n > nTau {
		return math.Inf(1), 0
	}
	t0 = math.NaN()
	if spikeS <= 0 {
		return n, t0
	}
	dt := spikeS / lawStepsPerSpike
	for i := 0; i < lawStepsPerSpike; i++ {
		n += (k*lambda - l.Throughput(n)) * dt
		if math.IsNaN(t0) && n > nTau {
			t0 = float64(i+1) * dt
		}
	}
	return n, t0
}

// MinMultiplierUnder is the least spike multiple k that triggers a spike
// of spikeS seconds under law l (to 0.1 %), +Inf when none up to 1,000 does.
func MinMultiplierUnder(l LatencyLaw, lambda, spikeS, patienceS float64) float64 {
	if l.Queue() {
		return minMultiplier(lambda/l.CapacityPerS, spikeS, l.WaitPatienceS(patienceS))
	}
	return bisectTrigger(func(k float64) bool { return CheckTriggerUnder(l, lambda, k, spikeS, patienceS).Valid }, 1, 1000)
}

// MinSpikeUnder is the shortest spike, seconds, that triggers with multiple
// k under law l (to 0.1 %), +Inf when none up to 10,000 s does.
func MinSpikeUnder(l LatencyLaw, lambda, k, patienceS float64) float64 {
	if l.Queue() {
		return MinSpike(k, lambda/l.CapacityPerS, l.WaitPatienceS(patienceS))
	}
	return bisectTrigger(func(d float64) bool { return CheckTriggerUnder(l, lambda, k, d, patienceS).Valid }, 0, 1e4)
}

// bisectTrigger finds the least x in (lo, hi] at which triggers(x) holds,
// triggers being monotone in x; +Inf when triggers(hi) does not hold.
func bisectTrigger(triggers func(x float64) bool, lo, hi float64) float64 {
	if !triggers(hi) {
		return math.Inf(1)
	}
	for hi-lo > 1e-3*hi {
		mid := (lo + hi) / 2
		if triggers(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TrapHoldsUnder reports whether a failed state holds under law l: the
// work arriving once every attempt fails, A·λ, is at least the
// throughput at the patience, C_τ (docs/model.md, "Latency laws and what
// sustains a trap"). Under the queue law this is A·ρ ≥ 1.
func TrapHoldsUnder(l LatencyLaw, a, lambda, patienceS float64) bool {
	return a*lambda >= l.CapacityAtTimeout(patienceS)
}
