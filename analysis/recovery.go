package analysis

import "math"

// RecoveryTime is the full closed form of the recovery time in seconds, from
// the spike's end to an empty queue, for a service at utilization rho with
// amplification a after a k-fold spike of spikeS seconds and a client timeout
// of timeoutS seconds (docs/model.md, "The trap", recovery time):
//
//	T_rec = (A·k·ρ − 1)·(Δ − t0)/(1 − A·ρ) + τ_out/(1 − ρ),  t0 = τ_out/(k·ρ − 1)
//
// It is +Inf when A·ρ ≥ 1 (trapped). When the spike is not a trigger no
// attempt times out and the result is the time the spike's backlog takes to
// drain at 1 − ρ: max(0, (k·ρ − 1)·Δ)/(1 − ρ).
func RecoveryTime(a, rho, k, spikeS, timeoutS float64) float64 {
	if rho >= 1 {
		return math.Inf(1)
	}
	if !CheckTrigger(k, rho, spikeS, timeoutS).Valid {
		return math.Max(0, (k*rho-1)*spikeS) / (1 - rho)
	}
	return RecoveryTimeAfter(a, rho, k, spikeS, TriggerTime(k, rho, timeoutS), timeoutS)
}

// RecoveryTimeAfter is the full closed form with t0 given, in seconds:
// (A·k·ρ − 1)·(Δ − t0)/(1 − A·ρ) + τ/(1 − ρ), for a spike that triggered
// t0 seconds after it began (t0 < Δ) against a patience of timeoutS. A run
// measures t0 to a fraction of a second; for the short spikes of a test
// the recovery time depends on Δ − t0 more than on anything else
// (docs/model.md, "The trap", recovery time). +Inf when A·ρ ≥ 1; NaN when
// t0 is not within the spike.
func RecoveryTimeAfter(a, rho, k, spikeS, t0, timeoutS float64) float64 {
	if trapped(a, rho) || rho >= 1 {
		return math.Inf(1)
	}
	if !(t0 >= 0 && t0 < spikeS) {
		return math.NaN()
	}
	return (a*k*rho-1)*(spikeS-t0)/(1-a*rho) + timeoutS/(1-rho)
}

// recoveryTimeLongSpike is the long-spike form Δ·(A·k·ρ − 1)/(1 − A·ρ), in
// seconds, valid for Δ ≫ τ_out (docs/model.md, "The trap", recovery time);
// +Inf when A·ρ ≥ 1.
func recoveryTimeLongSpike(a, rho, k, spikeS float64) float64 {
	if trapped(a, rho) {
		return math.Inf(1)
	}
	return spikeS * (a*k*rho - 1) / (1 - a*rho)
}

// peakWait is the closed-form wait in seconds at the spike's end:
// τ_out + (A·k·ρ − 1)·(Δ − t0) for a trigger, (k·ρ − 1)·Δ otherwise (zero
// when k·ρ ≤ 1). It is the peak of the model's wait (docs/model.md,
// "The trap", phases).
func peakWait(a, rho, k, spikeS, timeoutS float64) float64 {
	if !CheckTrigger(k, rho, spikeS, timeoutS).Valid {
		return math.Max(0, (k*rho-1)*spikeS)
	}
	t0 := TriggerTime(k, rho, timeoutS)
	return timeoutS + (a*k*rho-1)*(spikeS-t0)
}

// predictedWait is the closed-form wait in seconds at t seconds after the
// spike's start, following the phases of docs/model.md ("The trap"):
// growth at k·ρ − 1 until t0, at A·k·ρ − 1 for the rest of the spike, fall
// at 1 − A·ρ while above τ_out and at 1 − ρ below it. Before the spike
// (t < 0) the wait is zero.
func predictedWait(a, rho, k, spikeS, timeoutS, t float64) float64 {
	if t <= 0 {
		return 0
	}
	if t <= spikeS {
		t0 := TriggerTime(k, rho, timeoutS)
		if t <= t0 || !CheckTrigger(k, rho, spikeS, timeoutS).Valid {
			return math.Max(0, (k*rho-1)*t)
		}
		return timeoutS + (a*k*rho-1)*(t-t0)
	}
	w := peakWait(a, rho, k, spikeS, timeoutS)
	after := t - spikeS
	if w > timeoutS {
		if trapped(a, rho) {
			return w + (a*rho-1)*after
		}
		above := (w - timeoutS) / (1 - a*rho)
		if after <= above {
			return w - (1-a*rho)*after
		}
		after -= above
		w = timeoutS
	}
	return math.Max(0, w-(1-rho)*after)
}

// amplificationFromRecovery inverts the full recovery-time form for A: the
// amplification under which a service at utilization rho recovers from the
// given spike in recoveryS seconds (docs/model.md, "What a trigger test
// measures", item 4). T_rec grows with A, so the root is found by bisection on
// [1, 1/ρ). It returns NaN when the spike is not a trigger or recoveryS is
// shorter than the A = 1 recovery time.
func amplificationFromRecovery(recoveryS, rho, k, spikeS, timeoutS float64) float64 {
	if !CheckTrigger(k, rho, spikeS, timeoutS).Valid || rho <= 0 || rho >= 1 || math.IsNaN(recoveryS) || math.IsInf(recoveryS, 0) {
		return math.NaN()
	}
	lo, hi := 1.0, 1/rho
	if RecoveryTime(lo, rho, k, spikeS, timeoutS) > recoveryS {
		return math.NaN()
	}
	for range 200 {
		mid := (lo + hi) / 2
		if RecoveryTime(mid, rho, k, spikeS, timeoutS) < recoveryS {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// AmplificationFromRecoveryAfter inverts RecoveryTimeAfter for A, with t0
// measured: with X = T_rec − τ/(1 − ρ) and D = Δ − t0,
// A = (X + D)/(ρ·(k·D + X)). NaN when the inputs give no A ≥ 1 below the
// trap threshold (a recovery faster than A = 1 allows, t0 outside the spike).
func AmplificationFromRecoveryAfter(recoveryS, rho, k, spikeS, t0, timeoutS float64) float64 {
	if !(rho > 0 && rho < 1) || !(t0 >= 0 && t0 < spikeS) || math.IsNaN(recoveryS) || math.IsInf(recoveryS, 0) {
		return math.NaN()
	}
	x, d := recoveryS-timeoutS/(1-rho), spikeS-t0
	a := (x + d) / (rho * (k*d + x))
	if !(a >= 1 && a < 1/rho) {
		return math.NaN()
	}
	return a
}

// RecoveryTimeWithRetryLag corrects the full closed form for the lag of real
// retries, in seconds. The closed form lets a failing first attempt bring
// all its A units of work at once; a real client retries only when its
// timeout fires, τ_out later. When the wait falls back to τ_out, the retries
// still owed by requests that failed in the last R·τ_out, ρ·τ_out·R(R+1)/2
// seconds of work, have not arrived yet: the real wait crosses τ_out that
// much work earlier, and afterwards those retries arrive for one more τ_out
// and succeed. For a cap of R retries (A = R + 1, no budget, no backoff):
//
//	T_lag = T_rec − ρ·τ_out·R(R+1)/(2(1 − A·ρ)) + ρ·τ_out·R/(1 − ρ)
//
// It assumes the failed state settles at baseline (the recovery lasts
// several τ_out); it equals T_rec when R = 0 and is +Inf when A·ρ ≥ 1.
func RecoveryTimeWithRetryLag(maxRetries int, rho, k, spikeS, timeoutS float64) float64 {
	a := float64(maxRetries + 1)
	t := RecoveryTime(a, rho, k, spikeS, timeoutS)
	if math.IsInf(t, 0) || maxRetries == 0 || !CheckTrigger(k, rho, spikeS, timeoutS).Valid {
		return t
	}
	r := float64(maxRetries)
	return t - rho*timeoutS*r*(r+1)/(2*(1-a*rho)) + rho*timeoutS*r/(1-rho)
}
