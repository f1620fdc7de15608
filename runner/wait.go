package runner

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/scenarios"
)

// waitSignal is the queue wait the run judges the trend on, from the best
// source the scenario offers: the service's own wait metric; else the
// backlog integrated from ingress − served; else the wait tracers.
type waitSignal struct {
	source   string // "service", "ingress-served", "tracers" or "" (none)
	capacity float64
	backlog  float64 // ingress-served: seconds of work integrated since the spike started
	t, w     []float64
	peak     float64
}

func newWaitSignal(m *metrics, s *scenarios.Scenario) waitSignal {
	ws := waitSignal{capacity: s.Service.Capacity, peak: math.NaN()}
	switch {
	case m.has("wait"):
		ws.source = "service"
	case m.has("ingress") && m.has("served"):
		ws.source = "ingress-served"
	case s.Client.Tracers != nil:
		ws.source = "tracers"
	}
	return ws
}

// add takes the wait sample of a new row, if its source has one.
func (ws *waitSignal) add(row analysis.MeasuredSecond, r *run) {
	t, w := row.TS+1, math.NaN()
	switch ws.source {
	case "service":
		w = row.WaitS
	case "ingress-served":
		if math.IsNaN(r.spikeStart) || row.TS < r.spikeStart-1 {
			return
		}
		if !math.IsNaN(row.IngressPerS) && !math.IsNaN(row.ServedPerS) && ws.capacity > 0 {
			ws.backlog = math.Max(0, ws.backlog+(row.IngressPerS-row.ServedPerS)/ws.capacity)
		}
		w = ws.backlog
	case "tracers":
		// A tracer reports the wait it met when it was sent, w seconds ago.
		w = row.TracerWaitS
		t -= w
	}
	if math.IsNaN(w) || math.IsNaN(t) {
		return
	}
	ws.t, ws.w = append(ws.t, t), append(ws.w, w)
	if math.IsNaN(ws.peak) || w > ws.peak {
		ws.peak = w
	}
}

// since returns the samples at or after from, with times shifted by -origin.
func (ws *waitSignal) since(from, origin float64) (ts, w []float64) {
	for i := range ws.t {
		if ws.t[i] >= from {
			ts, w = append(ts, ws.t[i]-origin), append(w, ws.w[i])
		}
	}
	return ts, w
}

// latest is the most recent sample; NaN when there is none.
func (ws *waitSignal) latest() float64 {
	if len(ws.w) == 0 {
		return math.NaN()
	}
	return ws.w[len(ws.w)-1]
}
