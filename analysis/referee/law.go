package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// lawSkipS is the run's first seconds left out of the law's fit: the
// driver's connections are still being opened.
const lawSkipS = 2

// healthyUntil is the end of the run's first stretch of health, seconds
// since the load started: the first failing second from the spike's start
// on, or the end of the rows when none failed.
func (r *Referee) healthyUntil() float64 {
	for _, row := range r.rows {
		if row.TS >= r.spikeStart && !row.ByDriver() && row.FirstDone > 0 && row.Failing(r.cfg.SuccessRatio) {
			return row.TS
		}
	}
	return math.Inf(1)
}

// lawPoints are the seconds the service's latency law is fitted to: the
// healthy stretch before the spike failed anything (the warmup, the
// spike's rise), each second's attempts in flight and median latency.
// Seconds that failed, lost to the driver, or with no completed attempt
// say nothing of the law.
func (r *Referee) lawPoints() []analysis.LawPoint {
	until := r.healthyUntil()
	var pts []analysis.LawPoint
	for _, row := range r.rows {
		if row.TS < lawSkipS || row.TS >= until || row.ByDriver() || row.OK <= 0 || row.Failing(r.cfg.SuccessRatio) {
			continue
		}
		pts = append(pts, analysis.LawPoint{InFlight: row.InFlight, LatencyS: row.LatencyP50S})
	}
	return pts
}

// law is the service's latency law (docs/model.md, "Latency laws and what
// sustains a trap"): fitted to the run's healthy seconds, else the
// scenario's when it declares one, else the queue assumed.
func (r *Referee) law() analysis.LatencyLaw {
	if r.lawCache != nil && r.lawRows == len(r.rows) {
		return *r.lawCache
	}
	law := r.fitLaw()
	r.lawCache, r.lawRows = &law, len(r.rows)
	return law
}

// fitLaw is law, computed.
func (r *Referee) fitLaw() analysis.LatencyLaw {
	fit := analysis.FitLatencyLaw(r.lawPoints(), r.plan.Scenario.PatienceS)
	if fit.Source == analysis.LawFitted && fit.Queue() {
		// The queue's C from the latency's growth leads it: a second's
		// in-flight count, read at its end, is ahead of the latency of the
		// attempts that completed in it while the backlog grows. The
		// throughput of the busy seconds is C itself.
		fit.CapacityPerS = math.NaN()
		if c, n := r.busyThroughput(fit); n >= minBusySeconds && !r.faulted() {
			fit.CapacityPerS = c
		}
	}
	if fit.Source == analysis.LawFitted {
		return fit
	}
	if d := r.plan.LatencyLaw; d != nil && d.Source == analysis.LawDeclared {
		// (Every field set here: a judged document's law, read back, has
		// its nulls as zeros.)
		return analysis.LatencyLaw{Kind: d.Kind, FloorS: d.FloorS, CapacityPerS: r.plan.Scenario.CapacityPerS, Source: analysis.LawDeclared,
			FitR2: math.NaN(), OtherR2: math.NaN(), Note: "the scenario's: " + fit.Note}
	}
	return fit
}

// lawNotQueue says why the queue's forms do not hold for this service
// ("" when they do): its fitted law is concurrency's.
func lawNotQueue(law analysis.LatencyLaw) string {
	if law.Queue() {
		return ""
	}
	return fmt.Sprintf("the service's latency grows with every request in flight (%s law, L₀ = %s, C = %.0f/s)",
		law.Kind, analysis.FormatSeconds(law.FloorS), law.CapacityPerS)
}

// faulted says the run's trigger is a fault: its busy seconds serve C′.
func (r *Referee) faulted() bool { return r.plan.Scenario.Fault != nil }
