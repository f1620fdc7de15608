package runner

import (
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
)

// phaseSplitter is a load that measures its first attempts' latency by the
// phase they were sent in (loadgen.Driver.SplitAt): the in-process driver.
// A fleet's agents do not: their histograms are not merged, and a fleet's
// result has no latency by phase.
type phaseSplitter interface {
	SplitAt(at time.Duration, part string)
	PartLatencies() []loadgen.PartLatency
}

// splitPhase starts phase p at atS (run seconds; no earlier than the
// driver's now) in the driver's latency by phase. Splits set before for
// later moments are dropped: a fault that moves the spike's end sets it
// again.
func (r *run) splitPhase(atS float64, p analysis.Phase) {
	ps, ok := r.drv.(phaseSplitter)
	if !ok || math.IsNaN(atS) {
		return
	}
	ps.SplitAt(time.Duration(max(atS, 0)*float64(time.Second)), string(p))
}

// latencyByPhase is the driver's latency by phase for the result: warmup,
// spike and observe (null percentiles for one without attempts), and
// on_trap when the action ran; nil for a fleet, or before any split.
func (r *run) latencyByPhase() []analysis.PhaseLatency {
	ps, ok := r.drv.(phaseSplitter)
	if !ok {
		return nil
	}
	return phaseLatencies(ps.PartLatencies())
}

// phaseLatencies converts the driver's parts, named by phase, for the
// result: warmup, spike, observe in that order, on_trap when there is one.
func phaseLatencies(parts []loadgen.PartLatency) []analysis.PhaseLatency {
	if len(parts) == 0 {
		return nil
	}
	var out []analysis.PhaseLatency
	for _, p := range []analysis.Phase{analysis.PhaseWarmup, analysis.PhaseSpike, analysis.PhaseObserve, analysis.PhaseOnTrap} {
		pl := analysis.PhaseLatency{Phase: p}
		found := false
		for _, q := range parts {
			if q.Part == string(p) {
				pl.LatencyPercentiles, pl.Succeeded = percentiles(q.All), percentiles(q.OK)
				found = true
			}
		}
		if found || p != analysis.PhaseOnTrap {
			out = append(out, pl)
		}
	}
	return out
}

// percentiles are a histogram's for the result: null without attempts.
func percentiles(p loadgen.Percentiles) analysis.LatencyPercentiles {
	lp := analysis.LatencyPercentiles{Attempts: p.Count}
	if p.Count > 0 {
		lp.P50S, lp.P95S, lp.P99S = analysis.Num(p.P50), analysis.Num(p.P95), analysis.Num(p.P99)
	}
	return lp
}
