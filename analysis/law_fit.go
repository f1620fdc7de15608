package analysis

import (
	"fmt"
	"math"
	"sort"

	"github.com/trigger-test/trigger/vocab"
)

// LawPoint is one healthy second of a run: the requests in flight and the
// median latency of the attempts that completed in it.
type LawPoint struct {
	InFlight float64 // N, requests in flight
	LatencyS float64 // L, seconds
}

// The rules FitLatencyLaw chooses a law by (docs/model.md, "Latency laws
// and what sustains a trap").
const (
	// lawMinPoints is the fewest healthy seconds a law is fitted to.
	lawMinPoints = 8
	// lawMinR2 is the least R² of a law that fits.
	lawMinR2 = 0.6
	// lawBetterR2 is how much better concurrency's R² must be than the
	// queue's for the law to be called concurrency: where the two fit
	// alike the queue is kept, the law the rest of the model is written for.
	lawBetterR2 = 0.05
	// lawMinFloorShare is the least floor, as a share of the patience, that
	// tells concurrency from the queue: with L₀ → 0 both are L = N/C.
	lawMinFloorShare = 0.05
	// lawMinGrowthShare is the least growth of the latency over the
	// healthy seconds, as a share of the patience, that a law can be
	// fitted to: a flat latency says only its floor.
	lawMinGrowthShare = 0.05
	// lawMinReachShare is how far towards the patience the latency must
	// have grown above its floor, as a share of the wait's patience, for
	// the concurrency law's C to be read from it: a slope fitted on a
	// little growth extrapolates C tenfold (2,289/s from a service that
	// served 180/s at most).
	lawMinReachShare = 0.25
)

// FitLatencyLaw fits the queue law and the concurrency law to a run's
// healthy seconds by least squares and returns the one that fits, with
// both R² (docs/model.md, "Latency laws and what sustains a trap").
// patienceS is the shortest patience in front of the service. Where the
// latency did not grow enough to tell the laws apart, or neither fits,
// the result is the queue law, Source LawAssumed, with the floor measured
// (the median latency) and C unknown (NaN), and a note saying why.
func FitLatencyLaw(points []LawPoint, patienceS float64) LatencyLaw {
	pts := make([]LawPoint, 0, len(points))
	for _, p := range points {
		if p.InFlight >= 0 && p.LatencyS > 0 && !math.IsNaN(p.InFlight) && !math.IsInf(p.LatencyS, 0) && !math.IsInf(p.InFlight, 0) {
			pts = append(pts, p)
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].InFlight < pts[j].InFlight })
	n := len(pts)
	if n < lawMinPoints {
		return AssumedLaw(math.NaN(), fmt.Sprintf("%d healthy seconds with a latency, fewer than the %d a law is fitted to: the queue law assumed, no floor", n, lawMinPoints))
	}
	floor := medianLatency(pts[:(n+2)/3])
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = math.Min(lo, p.LatencyS), math.Max(hi, p.LatencyS)
	}
	if hi-lo < lawMinGrowthShare*patienceS {
		law := AssumedLaw(math.NaN(), fmt.Sprintf("the latency stayed within %s–%s over %d healthy seconds, too little growth to tell a law: the queue law assumed, its floor measured",
			FormatSeconds(lo), FormatSeconds(hi), n))
		law.FloorS = medianLatency(pts)
		return law
	}
	q := fitQueue(pts)
	c := fitConcurrency(pts)
	law := q
	law.OtherR2 = c.FitR2
	switch {
	case c.FitR2 >= lawMinR2 && c.FitR2 > q.FitR2+lawBetterR2 && c.FloorS >= lawMinFloorShare*patienceS && hi-c.FloorS >= lawMinReachShare*(patienceS-c.FloorS):
		law = c
		law.OtherR2 = q.FitR2
		law.Note = fmt.Sprintf("the latency grew with every request in flight from its floor (L = L₀ + N/C, R² = %.2f; the queue's max(L₀, N/C): %.2f)", c.FitR2, q.FitR2)
	case q.FitR2 >= lawMinR2 && c.FitR2 > q.FitR2+lawBetterR2:
		// Concurrency fit better, but on too little: its C would be an
		// extrapolation, its floor indistinguishable from none.
		law.Note = fmt.Sprintf("concurrency's L₀ + N/C fits better (R² = %.2f against the queue's %.2f), but the latency grew only %s above its floor, too little of the way to the patience to read its C: the queue's max(L₀, N/C) kept",
			c.FitR2, q.FitR2, FormatSeconds(math.Max(0, hi-c.FloorS)))
	case q.FitR2 >= lawMinR2:
		law.Note = fmt.Sprintf("the latency held at its floor until the service was busy, then grew by the backlog over C (L = max(L₀, N/C), R² = %.2f; concurrency's L₀ + N/C: %s)", q.FitR2, r2Text(c.FitR2))
	default:
		law = AssumedLaw(math.NaN(), fmt.Sprintf("neither law fits the %d healthy seconds (R² %s for the queue, %s for concurrency): the queue law assumed, its floor measured",
			n, r2Text(q.FitR2), r2Text(c.FitR2)))
		law.FloorS = floor
		law.FitR2, law.OtherR2 = math.NaN(), math.NaN()
		return law
	}
	law.Points, law.Source = n, LawFitted
	return law
}

// fitQueue fits L = max(L₀, N/C) to pts sorted by N: for each split, the
// seconds before it at the floor (their mean latency) and those from it
// on through the origin (least squares of L on N), keeping the split with
// the smallest squared error.
func fitQueue(pts []LawPoint) LatencyLaw {
	best := LatencyLaw{Kind: vocab.LawQueue, FitR2: math.Inf(-1)}
	bestSSE := math.Inf(1)
	for m := 1; m < len(pts)-1; m++ {
		var sumL float64
		for _, p := range pts[:m] {
			sumL += p.LatencyS
		}
		floor := sumL / float64(m)
		var nl, nn float64
		for _, p := range pts[m:] {
			nl += p.InFlight * p.LatencyS
			nn += p.InFlight * p.InFlight
		}
		if nl <= 0 || nn <= 0 {
			continue
		}
		law := LatencyLaw{Kind: vocab.LawQueue, FloorS: floor, CapacityPerS: nn / nl}
		if sse := squaredError(pts, law); sse < bestSSE {
			best, bestSSE = law, sse
		}
	}
	best.FitR2 = rSquared(pts, bestSSE)
	return best
}

// fitConcurrency fits L = L₀ + N/C to pts by least squares; its R² is
// -Inf when the latency does not grow with N or the floor comes out
// negative (not this law).
func fitConcurrency(pts []LawPoint) LatencyLaw {
	var sn, sl, snn, snl float64
	k := float64(len(pts))
	for _, p := range pts {
		sn += p.InFlight
		sl += p.LatencyS
		snn += p.InFlight * p.InFlight
		snl += p.InFlight * p.LatencyS
	}
	law := LatencyLaw{Kind: vocab.LawConcurrency, FitR2: math.Inf(-1), CapacityPerS: math.NaN()}
	den := k*snn - sn*sn
	if den <= 0 {
		return law
	}
	slope := (k*snl - sn*sl) / den
	floor := (sl - slope*sn) / k
	if slope <= 0 || floor < 0 {
		return law
	}
	law.FloorS, law.CapacityPerS = floor, 1/slope
	law.FitR2 = rSquared(pts, squaredError(pts, law))
	return law
}

// squaredError is Σ (L − law(N))² over pts.
func squaredError(pts []LawPoint, law LatencyLaw) float64 {
	var sse float64
	for _, p := range pts {
		d := p.LatencyS - law.Latency(p.InFlight)
		sse += d * d
	}
	return sse
}

// rSquared is 1 − sse/Σ (L − mean L)² over pts.
func rSquared(pts []LawPoint, sse float64) float64 {
	var mean, sst float64
	for _, p := range pts {
		mean += p.LatencyS
	}
	mean /= float64(len(pts))
	for _, p := range pts {
		d := p.LatencyS - mean
		sst += d * d
	}
	if sst <= 0 {
		return math.NaN()
	}
	return 1 - sse/sst
}

// medianLatency is the median latency of pts.
func medianLatency(pts []LawPoint) float64 {
	ls := make([]float64, len(pts))
	for i, p := range pts {
		ls[i] = p.LatencyS
	}
	sort.Float64s(ls)
	if len(ls)%2 == 1 {
		return ls[len(ls)/2]
	}
	return (ls[len(ls)/2-1] + ls[len(ls)/2]) / 2
}

// r2Text prints an R², "none" for a law that could not be fitted.
func r2Text(r2 float64) string {
	if math.IsNaN(r2) || math.IsInf(r2, 0) {
		return "none"
	}
	return fmt.Sprintf("%.2f", r2)
}
