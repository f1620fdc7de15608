package analysis

import "math"

// RunFacts are what the runner knows about a run besides its timeline.
type RunFacts struct {
	// SpikeStartS and SpikeEndS delimit the spike, seconds since the run started.
	SpikeStartS, SpikeEndS float64
	TimeoutS               float64 // τ_out
	Multiplier             float64 // k
	// T0S is when the first attempt met a wait past τ_out, seconds after
	// the spike started; NaN when none did.
	T0S float64
	// SettleS is how long after a change the retry streams take to reach
	// their failed-state rate: about (R + 1)·(τ_out + mean backoff).
	SettleS float64
	// RateLagS is the longest range of the service's rate queries: a rate
	// read at t averages [t − RateLagS, t], so service-side ratios settle
	// that much later than the driver's own counts.
	RateLagS float64
	// FailedToS ends the window over which the failed state is measured:
	// the recovery, an on_trap action, or the end of the run.
	FailedToS float64
	// RecoveryS is the measured recovery time from the spike's end (NaN if none).
	RecoveryS float64
	// ScenarioCapacityPerS is the scenario's C, used when the service's
	// served rate is unknown; ScenarioDemandPerS is its λ, used when the run
	// measured no baseline (no warmup).
	ScenarioCapacityPerS, ScenarioDemandPerS float64
}

// Inference is what a run's timeline says about the model's parameters
// (SPEC.md, "What a trigger test measures", item 4). Unknown values are NaN.
type Inference struct {
	BaselinePerS float64 // λ: first attempts sent per second before the spike
	// Multiplier is k as sent: the spike's first-attempt rate over λ.
	Multiplier   float64
	CapacityPerS float64 // C: served rate while a backlog exists
	// CapacitySource is "served" (measured) or "scenario" (assumed).
	CapacitySource string
	Utilization    float64 // ρ = λ/C
	// FailedFromS and FailedToS delimit the failed window after the spike;
	// A is measured over it and over the settled failed part of the spike
	// (from t0 + SettleS to its end), where demand is steady too.
	FailedFromS, FailedToS float64
	// AClient is attempts the driver sent per first attempt in the failed window.
	AClient float64
	// AFail is attempts arriving at the service per first attempt in the
	// failed window: ingress / first attempts.
	AFail float64
	// Hidden is AFail/AClient: retries by layers the clients do not see.
	Hidden float64
	// WaitSlope is the wait's trend over the failed window (A·ρ − 1).
	WaitSlope float64
	// AFromSlope is (slope + 1)/ρ.
	AFromSlope float64
	// AFromRecovery inverts the full recovery-time form at the measured ρ.
	AFromRecovery float64
	// PredictedRecoveryS is the full closed form at the measured A_fail and ρ.
	PredictedRecoveryS float64
}

// within reports whether the second r lies in [lo, hi), judged by its middle.
func within(r MeasuredSecond, lo, hi float64) bool {
	mid := r.TS + 0.5
	return mid >= lo && mid < hi
}

// mean of f over the rows within [lo, hi) where f is not NaN.
func meanOver(rows []MeasuredSecond, lo, hi float64, f func(MeasuredSecond) float64) float64 {
	var sum, n float64
	for _, r := range rows {
		if !within(r, lo, hi) {
			continue
		}
		if v := f(r); !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n
}

// ratioOver is Σ num / Σ den over the rows within any of the windows
// ([lo, hi) pairs) where both are known.
func ratioOver(rows []MeasuredSecond, windows [][2]float64, num, den func(MeasuredSecond) float64) float64 {
	var sn, sd float64
	for _, r := range rows {
		in := false
		for _, w := range windows {
			in = in || within(r, w[0], w[1])
		}
		if !in {
			continue
		}
		a, b := num(r), den(r)
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		sn += a
		sd += b
	}
	if sd == 0 {
		return math.NaN()
	}
	return sn / sd
}

// Infer estimates λ, C, ρ and A from a run's timeline, and predicts the
// recovery time from them (SPEC.md, item 4 of "What a trigger test
// measures"). wait is the wait series the runner judged the trend on
// (seconds since the run started, seconds), used for A from the slope.
func Infer(rows []MeasuredSecond, f RunFacts, waitT, waitW []float64) Inference {
	in := Inference{FailedFromS: f.SpikeEndS + f.SettleS, FailedToS: f.FailedToS}
	in.BaselinePerS = meanOver(rows, 1, f.SpikeStartS, func(r MeasuredSecond) float64 { return r.Sent })
	if math.IsNaN(in.BaselinePerS) {
		in.BaselinePerS = meanOver(rows, 0, f.SpikeStartS, func(r MeasuredSecond) float64 { return r.Sent })
	}
	if math.IsNaN(in.BaselinePerS) || in.BaselinePerS <= 0 {
		in.BaselinePerS = f.ScenarioDemandPerS
	}
	lo, hi := in.FailedFromS, in.FailedToS
	if hi-lo < 3 {
		// Too short a failed state after the spike: fall back to the spike
		// itself for capacity (the queue is not empty there either).
		lo, hi = f.SpikeStartS+math.Min(5, (f.SpikeEndS-f.SpikeStartS)/2), f.SpikeEndS
	}
	in.CapacityPerS = meanOver(rows, lo, hi, func(r MeasuredSecond) float64 { return r.ServedPerS })
	in.CapacitySource = "served"
	if math.IsNaN(in.CapacityPerS) || in.CapacityPerS <= 0 {
		in.CapacityPerS, in.CapacitySource = f.ScenarioCapacityPerS, "scenario"
	}
	in.Utilization = in.BaselinePerS / in.CapacityPerS

	spike := f.SpikeEndS - f.SpikeStartS
	in.Multiplier = meanOver(rows, f.SpikeStartS, f.SpikeEndS, func(r MeasuredSecond) float64 { return r.Sent }) / in.BaselinePerS

	in.AClient, in.AFail, in.Hidden = math.NaN(), math.NaN(), math.NaN()
	in.WaitSlope, in.AFromSlope = math.NaN(), math.NaN()
	// A is a ratio of rates over steady demand with every attempt failing:
	// the settled failed part of the spike and the failed state after it,
	// each begun late enough for the service's rate windows to hold only it.
	var windows [][2]float64
	if from := f.SpikeStartS + f.T0S + f.SettleS + f.RateLagS; from < f.SpikeEndS {
		windows = append(windows, [2]float64{from, f.SpikeEndS})
	}
	if from := in.FailedFromS + f.RateLagS; in.FailedToS > from {
		windows = append(windows, [2]float64{from, in.FailedToS})
	}
	if len(windows) > 0 {
		in.AClient = ratioOver(rows, windows, MeasuredSecond.Attempts, func(r MeasuredSecond) float64 { return r.Sent })
		in.AFail = ratioOver(rows, windows, func(r MeasuredSecond) float64 { return r.IngressPerS }, func(r MeasuredSecond) float64 {
			if !math.IsNaN(r.ServiceFirstPerS) {
				return r.ServiceFirstPerS
			}
			return r.Sent
		})
		in.Hidden = in.AFail / in.AClient
	}
	if in.FailedToS-in.FailedFromS >= 3 {
		fl, fh := in.FailedFromS, in.FailedToS
		var ts, ws []float64
		for i := range waitT {
			if waitT[i] >= fl && waitT[i] < fh {
				ts, ws = append(ts, waitT[i]), append(ws, waitW[i])
			}
		}
		if tr := FitTrend(ts, ws); tr.N >= 3 {
			in.WaitSlope = tr.Slope
			in.AFromSlope = (tr.Slope + 1) / in.Utilization
		}
	}
	k := in.Multiplier
	if math.IsNaN(k) {
		k = f.Multiplier
	}
	in.AFromRecovery = AmplificationFromRecovery(f.RecoveryS, in.Utilization, k, spike, f.TimeoutS)
	a := in.AFail
	if math.IsNaN(a) {
		a = in.AClient
	}
	in.PredictedRecoveryS = math.NaN()
	if !math.IsNaN(a) {
		in.PredictedRecoveryS = RecoveryTime(a, in.Utilization, k, spike, f.TimeoutS)
	}
	return in
}

// FindRecovery returns the first time at or after fromS from which the
// first-attempt success ratio stays at or above threshold for holdS seconds
// of known ratios (seconds with no completed first attempt neither count
// nor break the hold), and whether there is one.
func FindRecovery(rows []MeasuredSecond, fromS, threshold, holdS float64) (float64, bool) {
	start, held := math.NaN(), 0.0
	for _, r := range rows {
		if r.TS < fromS {
			continue
		}
		ratio := r.FirstSuccessRatio()
		switch {
		case math.IsNaN(ratio):
			continue
		case ratio >= threshold:
			if math.IsNaN(start) {
				start = r.TS
			}
			held++
			if held >= holdS {
				return start, true
			}
		default:
			start, held = math.NaN(), 0
		}
	}
	return math.NaN(), false
}

// Triggered reports whether any attempt timed out or was refused (503,
// 429) at or after fromS: the spike pushed the service past its clients'
// patience or into its defences.
func Triggered(rows []MeasuredSecond, fromS float64) bool {
	for _, r := range rows {
		if r.TS >= fromS && r.Timeouts+r.Rejected > 0 {
			return true
		}
	}
	return false
}
