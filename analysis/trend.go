package analysis

import "math"

// Trend is a least-squares line through (t, w) samples: the wait's trend
// after a spike. The slope is A·ρ − 1 in the failed state (docs/model.md,
// "The trap": w changes at A·ρ − 1 per second).
type Trend struct {
	N         int     // samples used
	Slope     float64 // seconds of wait per second
	Intercept float64 // wait at t = 0, seconds
	// SlopeStdErr is the standard error of the slope (zero for exact data).
	SlopeStdErr float64
}

// fitTrend fits w = Intercept + Slope·t by ordinary least squares, skipping
// NaN samples. With fewer than two usable samples it returns N < 2 and a
// zero slope.
func fitTrend(ts, ws []float64) Trend {
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

// binned averages samples over consecutive bins of width widthS starting
// at fromS: one (t, w) point per bin that holds samples, the means of its
// samples' times and waits. Samples before fromS or NaN are left out. A
// signal that changes only once per scrape gives one independent value per
// scrape, and a fit through every second of it would count each many times.
func binned(ts, ws []float64, fromS, widthS float64) (bt, bw []float64) {
	if widthS <= 0 {
		widthS = 1
	}
	cur, n := -1, 0.0
	var st, sw float64
	flush := func() {
		if n > 0 {
			bt, bw = append(bt, st/n), append(bw, sw/n)
		}
		st, sw, n = 0, 0, 0
	}
	for i := range ts {
		if math.IsNaN(ts[i]) || math.IsNaN(ws[i]) || ts[i] < fromS {
			continue
		}
		b := int(math.Floor((ts[i] - fromS) / widthS))
		if b != cur {
			flush()
			cur = b
		}
		st += ts[i]
		sw += ws[i]
		n++
	}
	flush()
	return bt, bw
}

// tTable holds the two-sided 95 % quantiles of Student's t distribution,
// t(0.975; ν), for ν = 1 … 30 degrees of freedom.
var tTable = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// TQuantile is the two-sided 95 % quantile of Student's t with dof degrees
// of freedom: the half-width of a 95 % interval in standard errors when
// the standard error itself is estimated from dof residual degrees of
// freedom. Beyond the table it uses the Cornish–Fisher expansion around
// z = 1.96, exact to three decimals there. NaN for dof < 1.
func TQuantile(dof int) float64 {
	switch {
	case dof < 1:
		return math.NaN()
	case dof <= len(tTable):
		return tTable[dof-1]
	}
	z, v := 1.959964, float64(dof)
	return z + (z*z*z+z)/(4*v) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*v*v)
}
