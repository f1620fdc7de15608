package runner

import (
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/version"
	"github.com/trigger-test/trigger/loadgen"
)

// document assembles the run's result document: the plan's sections, what
// only the run knows (its wall clock, the trigger that ran it, a fleet,
// the fault's commands, a stop condition, an on_trap command's failure),
// and what the referee
// judged (referee.Fill: what was measured, the verdict and the gate).
func (r *run) document() analysis.Document {
	doc := r.plan
	doc.TriggerVersion = version.String()
	obs := &analysis.Observation{}
	if !r.start.IsZero() {
		obs.StartedAt = r.start.UTC().Format(time.RFC3339Nano)
		if r.fault != nil {
			obs.Fault = &analysis.FaultOutcome{Name: r.spec.Fault.Name, StartedS: analysis.Num(r.faultStartS), StoppedS: analysis.Num(r.faultStopS),
				Restored: r.fault.restored(), Error: r.fault.failure()}
		}
	}
	if ev := r.stopped; ev != nil {
		obs.StoppedBy = &analysis.StopRecord{By: ev.name, Reason: ev.reason}
		if !r.start.IsZero() {
			obs.StoppedBy.AtS = math.Max(0, ev.at.Sub(r.start).Seconds())
		}
	}
	obs.LatencyByPhase = r.latencyByPhase()
	doc.Observation = obs
	r.ref.Fill(&doc)
	if r.fleet != nil {
		doc.Fleet = r.fleet.Info()
	}
	if st, ot := r.onTrap, doc.Observation.OnTrap; st != nil && ot != nil {
		ot.Error = st.err
	}
	return doc
}

// requestNames are the names of a mix's requests, in its order; nil for
// fewer than two.
func requestNames(mix []loadgen.Request) []string {
	if len(mix) < 2 {
		return nil
	}
	out := make([]string, len(mix))
	for i, q := range mix {
		out[i] = q.Name
	}
	return out
}
