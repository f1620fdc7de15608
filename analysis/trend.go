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
