package analysis

import "math"

// The collapse law of one M/M/1 server with timeouts (docs/model.md, "The
// collapse law"): service rate μ, Poisson arrivals, per-attempt timeout T with
// θ = μ·T, timed-out work completed anyway, give-up after a given number of
// attempts in total.

// timeoutProbability is q = e^(−θ(1−ρ)), the chance that an attempt's FIFO
// sojourn, exponential with rate μ(1 − ρ), exceeds the timeout, where ρ is
// the server's utilization (all attempts included).
func timeoutProbability(theta, rho float64) float64 {
	return math.Exp(-theta * (1 - rho))
}

// fixedPointDemand is the first-attempt demand λ, per second, at which the
// server settles at utilization rho when each request makes at most
// `attempts` attempts in total: λ = μ·ρ·(1 − q)/(1 − q^R). With attempts ≤ 0
// (unlimited re-offer) it is μ·ρ·(1 − q). Plotting it against ρ gives the
// fixed-point curve whose fold is the collapse.
func fixedPointDemand(mu, theta, rho float64, attempts int) float64 {
	q := timeoutProbability(theta, rho)
	if attempts <= 0 {
		return mu * rho * (1 - q)
	}
	return mu * rho * (1 - q) / (1 - math.Pow(q, float64(attempts)))
}

// CollapseCeiling is λ_c, per second, the highest demand the server can hold
// in its good state under instant unlimited re-offer: the maximum of
// μ·ρ·(1 − q), λ_c = μ·θ·ρ*²/(1 + θ·ρ*) where θ(1 − ρ*) = ln(1 + θ·ρ*).
// It also returns ρ*. Above λ_c no policy keeps the good state.
func CollapseCeiling(mu, theta float64) (lambdaC, rhoStar float64) {
	if theta <= 0 {
		return 0, 0
	}
	// g(ρ) = θ(1−ρ) − ln(1+θρ) falls from θ at ρ = 0 to −ln(1+θ) at ρ = 1.
	lo, hi := 0.0, 1.0
	for range 100 {
		mid := (lo + hi) / 2
		if theta*(1-mid)-math.Log1p(theta*mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	rhoStar = (lo + hi) / 2
	return mu * theta * rhoStar * rhoStar / (1 + theta*rhoStar), rhoStar
}

// CollapseCeilingAsymptote is the large-θ form λ_c → μ·(1 − (ln θ + 1)/θ).
func CollapseCeilingAsymptote(mu, theta float64) float64 {
	return mu * (1 - (math.Log(theta)+1)/theta)
}

// RecoveryThreshold is λ_r = μ/R, per second, the demand below which a
// collapsed server comes back: collapsed, every job burns all R attempts, so
// the storm sustains itself while λ·R ≳ μ. With unlimited attempts
// (attempts ≤ 0) it is zero: the server never comes back by itself.
func RecoveryThreshold(mu float64, attempts int) float64 {
	if attempts <= 0 {
		return 0
	}
	return mu / float64(attempts)
}

// HasHysteresis reports (R − 1)·θ > 2: only then does the server have a
// cliff and a loop (two stable states over a band of demand). attempts ≤ 0
// means unlimited, which always has one.
func HasHysteresis(attempts int, theta float64) bool {
	if attempts <= 0 {
		return theta > 0
	}
	return float64(attempts-1)*theta > 2
}
