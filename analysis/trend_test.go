package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func line(n int, slope, intercept, noise float64, seed uint64) (ts, ws []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		t := float64(i)
		ts = append(ts, t)
		ws = append(ws, intercept+slope*t+noise*rng.NormFloat64())
	}
	return ts, ws
}

func TestFitTrend(t *testing.T) {
	ts, ws := line(50, -0.25, 20, 0, 1)
	tr := fitTrend(ts, ws)
	if !near(tr.Slope, -0.25, 1e-12) || !near(tr.Intercept, 20, 1e-12) || tr.SlopeStdErr > 1e-12 || tr.N != 50 {
		t.Errorf("exact line: %+v", tr)
	}
	ts, ws = line(200, 0.2, 40, 0.5, 2)
	ws[10] = math.NaN() // skipped
	tr = fitTrend(ts, ws)
	if math.Abs(tr.Slope-0.2) > 4*tr.SlopeStdErr || tr.N != 199 || tr.SlopeStdErr <= 0 {
		t.Errorf("noisy line: %+v", tr)
	}
	if fitTrend([]float64{1}, []float64{2}).N != 1 {
		t.Error("one sample")
	}
}
