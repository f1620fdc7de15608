package analysis

import "math"

// Sizing formulas for one service (docs/model.md, "Sizing formulas").

// littleL is Little's law L = λ·W: the number in the system for an arrival
// rate lambda (per second) and a time in system waitS (seconds).
func littleL(lambda, waitS float64) float64 { return lambda * waitS }

// drainTime is Q/(μ − λ), seconds to drain a backlog of q units with service
// rate mu and arrival rate lambda (per second); +Inf when μ ≤ λ.
func drainTime(q, mu, lambda float64) float64 {
	if mu <= lambda {
		return math.Inf(1)
	}
	return q / (mu - lambda)
}

// spikeBacklog is Q = (λ_peak − μ)·T, the units left by a burst of
// peak rate lambdaPeak lasting spikeS seconds; zero when λ_peak ≤ μ.
func spikeBacklog(lambdaPeak, mu, spikeS float64) float64 {
	return math.Max(0, (lambdaPeak-mu)*spikeS)
}

// boundedQueue is the largest queue worth holding, in units:
// min(μ·W_q,budget, (μ − λ0)·T_recover), for a queueing-delay budget waitBudgetS
// and a recovery budget recoverS, both seconds.
func boundedQueue(mu, waitBudgetS, lambda0, recoverS float64) float64 {
	return math.Min(mu*waitBudgetS, math.Max(0, (mu-lambda0)*recoverS))
}

// scalingTarget is ρ_target = ρ_max/B, the utilization to hold so that a
// burst of multiplier B during the scaling delay still peaks at ρ_max.
func scalingTarget(rhoMax, burst float64) float64 { return rhoMax / burst }

// mm1Wait is the M/M/1 queueing delay E[S]·ρ/(1 − ρ) in seconds for a mean
// service time meanServiceS; +Inf when ρ ≥ 1.
func mm1Wait(rho, meanServiceS float64) float64 {
	if rho >= 1 {
		return math.Inf(1)
	}
	return meanServiceS * rho / (1 - rho)
}

// kingmanWait is Kingman's G/G/1 approximation of the queueing delay,
// W_q ≈ E[S]·(ρ/(1 − ρ))·(C_a² + C_s²)/2, in seconds, with ca2 and cs2 the
// squared coefficients of variation of inter-arrival and service times.
func kingmanWait(meanServiceS, rho, ca2, cs2 float64) float64 {
	return mm1Wait(rho, meanServiceS) * (ca2 + cs2) / 2
}

// admitByDeadline reports E[W_q] + E[S] + ε ≤ D_remaining: admit an attempt
// only if it is expected to finish while its caller still waits (seconds).
func admitByDeadline(expectedWaitS, expectedServiceS, slackS, remainingS float64) bool {
	return expectedWaitS+expectedServiceS+slackS <= remainingS
}

// wasteRatio is the scarce resource spent on attempts that did not produce
// a useful answer over all of it spent; zero when nothing was spent.
func wasteRatio(wasted, total float64) float64 {
	if total <= 0 {
		return 0
	}
	return wasted / total
}
