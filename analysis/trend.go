package analysis

import "math"

// Trend is a least-squares line through (t, w) samples: the wait's trend
// after a spike. The slope is A·ρ − 1 in the failed state (SPEC.md, "The
// trap": w changes at A·ρ − 1 per second).
type Trend struct {
	N         int     // samples used
	Slope     float64 // seconds of wait per second
	Intercept float64 // wait at t = 0, seconds
	// SlopeStdErr is the standard error of the slope (zero for exact data).
	SlopeStdErr float64
}

// FitTrend fits w = Intercept + Slope·t by ordinary least squares, skipping
// NaN samples. With fewer than two usable samples it returns N < 2 and a
// zero slope.
func FitTrend(ts, ws []float64) Trend {
	var n, st, sw float64
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsNaN(ws[i]) {
			continue
		}
		n++
		st += ts[i]
		sw += ws[i]
	}
	tr := Trend{N: int(n)}
	if n < 2 {
		return tr
	}
	mt, mw := st/n, sw/n
	var sxx, sxy float64
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsNaN(ws[i]) {
			continue
		}
		dt := ts[i] - mt
		sxx += dt * dt
		sxy += dt * (ws[i] - mw)
	}
	if sxx == 0 {
		return tr
	}
	tr.Slope = sxy / sxx
	tr.Intercept = mw - tr.Slope*mt
	if n > 2 {
		var rss float64
		for i := range ts {
			if math.IsNaN(ts[i]) || math.IsNaN(ws[i]) {
				continue
			}
			r := ws[i] - tr.Intercept - tr.Slope*ts[i]
			rss += r * r
		}
		tr.SlopeStdErr = math.Sqrt(rss / (n - 2) / sxx)
	}
	return tr
}

// At returns the trend's wait at time t.
func (tr Trend) At(t float64) float64 { return tr.Intercept + tr.Slope*t }

// TrendPolicy tunes the early verdict.
type TrendPolicy struct {
	// MinPoints is the fewest samples before any decision; default 5.
	MinPoints int
	// PatientPoints is how many samples a slope that is not significantly
	// negative may take before it counts as not falling; default 6·MinPoints.
	PatientPoints int
	// Z is the width of the slope's interval in standard errors; default 2.
	Z float64
	// MinStdErr is a floor on the slope's standard error, seconds per
	// second, so exact-looking data from a gauge is not over-trusted; default 0.002.
	MinStdErr float64
}

func (p TrendPolicy) withDefaults() TrendPolicy {
	if p.MinPoints <= 0 {
		p.MinPoints = 5
	}
	if p.PatientPoints <= 0 {
		p.PatientPoints = 6 * p.MinPoints
	}
	if p.Z <= 0 {
		p.Z = 2
	}
	if p.MinStdErr <= 0 {
		p.MinStdErr = 0.002
	}
	return p
}

// TrendVerdict is the early verdict from the wait's trend after a spike.
type TrendVerdict struct {
	// Decided is set once the trend says trapped or metastable; a falling
	// trend that fits the budget leaves it unset (wait for recovery).
	Decided bool
	Verdict Verdict // trapped or metastable when Decided
	Trend   Trend
	// SlopeLo and SlopeHi bound the slope (Slope ∓ Z·stderr).
	SlopeLo, SlopeHi float64
	// ProjectedS is the projected recovery time from the spike's end, with
	// ProjectedLoS and ProjectedHiS from the slope's bounds; +Inf when the
	// wait is not falling.
	ProjectedS, ProjectedLoS, ProjectedHiS float64
	Reason                                 string
}

// JudgeTrend gives the early verdict of SPEC.md's observation: ts are
// seconds since the spike's end, ws the wait samples. A wait that is
// significantly not falling means trapped (A·ρ ≥ 1); a falling one gives a
// projected recovery time (ProjectRecovery) with an interval, and when even
// the optimistic end of it exceeds budgetS (> 0) the verdict is metastable.
// elapsedS is the time since the spike's end; waitNowS the latest wait.
func JudgeTrend(ts, ws []float64, elapsedS, waitNowS, timeoutS, rho, budgetS float64, policy TrendPolicy) TrendVerdict {
	p := policy.withDefaults()
	tr := FitTrend(ts, ws)
	se := math.Max(tr.SlopeStdErr, p.MinStdErr)
	v := TrendVerdict{Trend: tr, SlopeLo: tr.Slope - p.Z*se, SlopeHi: tr.Slope + p.Z*se}
	v.ProjectedS = ProjectRecovery(elapsedS, waitNowS, tr.Slope, timeoutS, rho)
	v.ProjectedLoS = ProjectRecovery(elapsedS, waitNowS, v.SlopeLo, timeoutS, rho)
	v.ProjectedHiS = ProjectRecovery(elapsedS, waitNowS, v.SlopeHi, timeoutS, rho)
	if tr.N < p.MinPoints {
		v.Reason = "too few samples"
		return v
	}
	switch {
	case tr.Slope >= 0 && (v.SlopeLo >= 0 || tr.N >= p.PatientPoints):
		v.Decided, v.Verdict = true, VerdictTrapped
		v.Reason = "the wait is not falling after the spike"
	case v.SlopeHi < 0 && budgetS > 0 && !math.IsNaN(rho) && v.ProjectedLoS > budgetS:
		v.Decided, v.Verdict = true, VerdictMetastable
		v.Reason = "the wait is falling, but too slowly to recover within the budget"
	case v.SlopeHi < 0:
		v.Reason = "the wait is falling"
	default:
		v.Reason = "the trend is not yet significant"
	}
	return v
}
