package runner

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// waitSources holds, as the run goes, every wait series the scenario
// offers, so the judge can take the best one that has data.
type waitSources struct {
	delays     map[string]float64 // seconds after the spike's end before each source holds only the state after it
	resolution map[string]float64 // seconds between independent samples of each source
	series     map[string]*analysis.WaitSeries
	capacity   float64 // C of the backlog integral: the scenario's
	backlog    float64 // seconds of work integrated since the spike began
}

func newWaitSources(delays, resolution map[string]float64, capacity float64) *waitSources {
	ws := &waitSources{delays: delays, resolution: resolution, capacity: capacity, series: map[string]*analysis.WaitSeries{}}
	for src, d := range delays {
		ws.series[src] = &analysis.WaitSeries{Source: src, DelayS: d, ResolutionS: math.Max(1, resolution[src])}
	}
	return ws
}

// add takes the wait samples of a new row, and fills its BacklogWaitS.
// spikeStart is NaN before the spike.
func (ws *waitSources) add(row *analysis.TimelineRow, spikeStart float64) {
	at := row.TS + 1
	if s := ws.series[analysis.WaitFromService]; s != nil && !math.IsNaN(row.WaitS) {
		s.T, s.W = append(s.T, at), append(s.W, row.WaitS)
	}
	if s := ws.series[analysis.WaitFromTracers]; s != nil && row.TracerServed > 0 && !math.IsNaN(row.TracerWaitS) {
		// A tracer reports the wait it met when it was sent, w seconds ago.
		s.T, s.W = append(s.T, at-row.TracerWaitS), append(s.W, row.TracerWaitS)
	}
	row.BacklogWaitS = math.NaN()
	if s := ws.series[analysis.WaitFromBacklog]; s != nil && !math.IsNaN(spikeStart) && row.TS+1 > spikeStart && ws.capacity > 0 {
		if !math.IsNaN(row.IngressPerS) && !math.IsNaN(row.ServedPerS) {
			ws.backlog = math.Max(0, ws.backlog+(row.IngressPerS-row.ServedPerS)/ws.capacity)
		}
		row.BacklogWaitS = ws.backlog
		s.T, s.W = append(s.T, at), append(s.W, ws.backlog)
	}
}

// latest is the newest sample of a source; NaN when it has none.
func (ws *waitSources) latest(src string) float64 {
	s := ws.series[src]
	if s == nil || len(s.W) == 0 {
		return math.NaN()
	}
	return s.W[len(s.W)-1]
}

// peak is the largest sample of a source; NaN when it has none.
func (ws *waitSources) peak(src string) float64 {
	s := ws.series[src]
	p := math.NaN()
	if s == nil {
		return p
	}
	for _, w := range s.W {
		if math.IsNaN(p) || w > p {
			p = w
		}
	}
	return p
}

// choice is the wait source the judge uses now, and why that one.
type choice struct {
	series analysis.WaitSeries
	reason string
}

// choose takes the best source that has enough settled samples to be
// judged: the service's wait gauge, else tracers the service answered,
// else ingress − served; while none has, the best that exists (to say
// what the run is waiting for). tracerNote explains tracers that could not
// see the wait (a layer in front of the service gave up on them first).
func (ws *waitSources) choose(spikeEndS float64, tracerNote string) choice {
	var skipped []string
	var first *analysis.WaitSeries
	for _, src := range analysis.WaitSources {
		s := ws.series[src]
		if s == nil {
			continue
		}
		if first == nil {
			first = s
		}
		if n := settledPoints(*s, spikeEndS); n >= analysis.MeasuredJudgePolicy.MinPoints {
			return choice{series: *s, reason: chosenReason(src, skipped)}
		}
		switch {
		case src == analysis.WaitFromTracers && tracerNote != "":
			skipped = append(skipped, tracerNote)
		case src == analysis.WaitFromTracers:
			skipped = append(skipped, "too few tracers the service answered after the spike")
		case src == analysis.WaitFromService:
			skipped = append(skipped, "the wait query had too few settled values")
		}
	}
	if first == nil {
		return choice{reason: "the scenario gives no wait signal: no wait query, no ingress and served queries, no tracers"}
	}
	return choice{series: *first, reason: chosenReason(first.Source, nil)}
}

// settledPoints counts the independent samples of s after it settled.
func settledPoints(s analysis.WaitSeries, spikeEndS float64) int {
	from := spikeEndS + s.DelayS
	bins := map[int]bool{}
	for i, t := range s.T {
		if t >= from && !math.IsNaN(s.W[i]) {
			bins[int(math.Floor((t-from)/s.ResolutionS))] = true
		}
	}
	return len(bins)
}

func chosenReason(src string, skipped []string) string {
	what := map[string]string{
		analysis.WaitFromService: "the service's own wait gauge (the wait query), the best source",
		analysis.WaitFromTracers: "tracers the service answered: each one's latency is the wait it met",
		analysis.WaitFromBacklog: "the backlog integrated from the service's ingress and served rates; it lags by their range windows",
	}[src]
	for _, s := range skipped {
		what += "; not a better source: " + s
	}
	return what
}

// tracerBlindness says, when tracers after the spike came back only as
// server errors at a nearly fixed latency, that a layer in front of the
// service gives up on them first (so they cannot see the wait), with that
// latency; "" otherwise.
func tracerBlindness(rows []analysis.TimelineRow, fromS float64) string {
	var served, errs float64
	var lat []float64
	for _, r := range rows {
		if r.TS < fromS {
			continue
		}
		served += r.TracerServed
		errs += r.TracerErrors
		if r.TracerErrors > 0 && !math.IsNaN(r.TracerErrorLatencyP50S) {
			lat = append(lat, r.TracerErrorLatencyP50S)
		}
	}
	if errs == 0 || served > 0.05*errs || len(lat) == 0 {
		return ""
	}
	lo, med, hi := spread(lat)
	if hi-lo > 0.2*med {
		return ""
	}
	return fmt.Sprintf("after the spike every tracer came back as a server error after %s (%.0f of them, none served): a layer in front of the service gives up first, so tracers cannot see the wait",
		analysis.FormatSeconds(med), errs)
}
