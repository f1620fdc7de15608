package referee

import (
	"fmt"
	"math"
	"slices"

	"github.com/trigger-test/trigger/analysis"
)

// givesUp is what a run saw of a layer in front of the service that gives
// up before the clients do: nearly every failed first attempt a server
// error answered at a nearly fixed latency shorter than τ_out.
type givesUp struct {
	latencyS float64 // the median latency of those errors, seconds
	errors   float64 // first attempts answered so
}

// layerGivesUp looks at the failed first attempts in [fromS, toS): when at
// least 90 % are server errors, answered at a latency whose 10th to 90th
// percentiles lie within 20 % of the median and which is well below the
// clients' timeout (between 5 % and 95 % of it: a refusal at the door is
// fast, a timeout at the client is τ_out), a layer in front of the service
// gives up on it first. ok is false otherwise.
func layerGivesUp(rows []analysis.TimelineRow, fromS, toS, timeoutS float64) (givesUp, bool) {
	var failed, errs float64
	var p10, p50, p90 []float64
	for _, r := range rows {
		if r.TS < fromS || r.TS >= toS {
			continue
		}
		failed += r.FirstFailed()
		errs += r.FirstErrors
		if r.FirstErrors > 0 && !math.IsNaN(r.ErrorLatencyP50S) {
			p10, p50, p90 = append(p10, r.ErrorLatencyP10S), append(p50, r.ErrorLatencyP50S), append(p90, r.ErrorLatencyP90S)
		}
	}
	if failed == 0 || errs < 0.9*failed || len(p50) == 0 {
		return givesUp{}, false
	}
	_, med, _ := spread(p50)
	_, lo, _ := spread(p10)
	_, hi, _ := spread(p90)
	if hi-lo > 0.2*med || med < 0.05*timeoutS || med > 0.95*timeoutS {
		return givesUp{}, false
	}
	return givesUp{latencyS: med, errors: errs}, true
}

// describe puts what the run saw into words, with the per-try timeout it
// implies: a layer that tries h times (the hidden factor) before it
// answers gives each try about latency/h.
func (g givesUp) describe(hidden float64) string {
	s := fmt.Sprintf("a layer in front of the service gives up first: %.0f failed first attempts were server errors answered after %s, before the clients' timeout",
		g.errors, analysis.FormatSeconds(g.latencyS))
	if tries := math.Round(hidden); tries >= 2 {
		s += fmt.Sprintf("; with the hidden factor %.1f it tries about %.0f times, about %s each: the patience the service sees", hidden, tries, analysis.FormatSeconds(g.latencyS/tries))
	}
	return s
}

// patienceFrom says in a few words where the measured patience comes from.
func (g givesUp) patienceFrom(hidden float64) string {
	tries := 1.0
	if !math.IsNaN(hidden) {
		tries = math.Max(1, math.Round(hidden))
	}
	return fmt.Sprintf("measured: a layer answers errors after %s, %.0f tries", analysis.FormatSeconds(g.latencyS), tries)
}

// patience is the per-try patience the layer's behaviour implies: its
// error latency over its number of tries (the rounded hidden factor, at
// least one).
func (g givesUp) patience(hidden float64) float64 {
	tries := 1.0
	if !math.IsNaN(hidden) {
		tries = math.Max(1, math.Round(hidden))
	}
	return g.latencyS / tries
}

// spread returns the 10th percentile, the median and the 90th percentile
// of xs (NaN for none), by nearest rank.
func spread(xs []float64) (p10, p50, p90 float64) {
	if len(xs) == 0 {
		n := math.NaN()
		return n, n, n
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 { return s[int(math.Round(q*float64(len(s)-1)))] }
	return at(0.1), at(0.5), at(0.9)
}
