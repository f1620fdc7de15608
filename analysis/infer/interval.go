package infer

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// Interval is an estimate with its 95 % confidence interval. Lo
// and Hi are NaN when the data cannot give an interval (too few
// independent samples); Value is NaN when there is no estimate at all.
type Interval struct {
	Value, Lo, Hi float64
	// N is the number of independent samples behind the estimate.
	N int
}

// unknownInterval is an estimate that could not be made.
func unknownInterval() Interval {
	n := math.NaN()
	return Interval{Value: n, Lo: n, Hi: n}
}

// String prints the estimate with its interval: "9.02 (8.91–9.13)", or
// "9.02" without one.
func (iv Interval) String() string {
	if !iv.Bounded() {
		return fmt.Sprintf("%.2f", iv.Value)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", iv.Value, iv.Lo, iv.Hi)
}

// Known reports whether the estimate exists.
func (iv Interval) Known() bool { return !math.IsNaN(iv.Value) }

// Bounded reports whether the estimate has an interval.
func (iv Interval) Bounded() bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

// Excludes reports whether the interval is known and x lies outside it.
func (iv Interval) Excludes(x float64) bool { return iv.Bounded() && (x < iv.Lo || x > iv.Hi) }

// scale multiplies the estimate and its bounds by k > 0.
func (iv Interval) scale(k float64) Interval {
	return Interval{Value: iv.Value * k, Lo: iv.Lo * k, Hi: iv.Hi * k, N: iv.N}
}

// meanInterval is the mean of xs with its 95 % t interval, the standard
// error multiplied by inflate (≥ 1) for samples that are correlated (each
// shares data with its neighbours, as overlapping rate windows do: the
// variance of their mean is then larger by about the number of samples a
// window spans). NaN samples are skipped; with fewer than two samples the
// bounds are NaN.
func meanInterval(xs []float64, inflate float64) Interval {
	var n, sum float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			n++
			sum += x
		}
	}
	if n == 0 {
		return unknownInterval()
	}
	mean := sum / n
	iv := Interval{Value: mean, Lo: math.NaN(), Hi: math.NaN(), N: int(n)}
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	se := math.Sqrt(ss/(n-1)/n) * math.Max(1, inflate)
	h := analysis.TQuantile(int(n)-1) * se
	iv.Lo, iv.Hi = mean-h, mean+h
	return iv
}
