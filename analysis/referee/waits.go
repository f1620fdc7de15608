package referee

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// waitSources holds, as the run goes, every wait series the scenario
// offers, so the judge can take the best one that has data.
type waitSources struct {
	delays     map[analysis.WaitSource]float64 // seconds after the spike's end before each source holds only the state after it
	resolution map[analysis.WaitSource]float64 // seconds between independent samples of each source
	series     map[analysis.WaitSource]*analysis.WaitSeries
	capacity   float64 // C of the backlog integral: the scenario's
	backlog    float64 // seconds of work integrated since the spike began
}

func newWaitSources(delays, resolution map[analysis.WaitSource]float64, capacity float64) *waitSources {
	ws := &waitSources{delays: delays, resolution: resolution, capacity: capacity, series: map[analysis.WaitSource]*analysis.WaitSeries{}}
	for src, d := range delays {
		ws.series[src] = &analysis.WaitSeries{Source: src, DelayS: d, ResolutionS: math.Max(1, resolution[src])}
	}
	return ws
}

// retune sets new delays and resolutions (a scrape interval read again):
// the samples stay, the judge reads them with the new delays.
func (ws *waitSources) retune(delays, resolution map[analysis.WaitSource]float64) {
	ws.delays, ws.resolution = delays, resolution
	for src, s := range ws.series {
		if d, ok := delays[src]; ok {
			s.DelayS = d
		}
		s.ResolutionS = math.Max(1, resolution[src])
	}
}

// add takes the wait samples of a new row, and fills its BacklogWaitS.
// spikeStart is NaN before the spike.
func (ws *waitSources) add(row *analysis.TimelineRow, spikeStart float64) {
	at := row.TS + 1
	if s := ws.series[analysis.WaitFromService]; s != nil && !math.IsNaN(row.WaitS) {
		s.T, s.W = append(s.T, at), append(s.W, row.WaitS)
	}
	if s := ws.series[analysis.WaitFromTracers]; s != nil && row.TracerServed > 0 && !math.IsNaN(row.TracerWaitS) && !row.ByDriver() {
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
func (ws *waitSources) latest(src analysis.WaitSource) float64 {
	s := ws.series[src]
	if s == nil || len(s.W) == 0 {
		return math.NaN()
	}
	return s.W[len(s.W)-1]
}

// peak is the largest sample of a source; NaN when it has none.
func (ws *waitSources) peak(src analysis.WaitSource) float64 {
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

// choice is the wait source the judge uses now, and why that one; blind
// are the sources that cannot show the wait (blindness), with why.
type choice struct {
	series analysis.WaitSeries
	reason string
	blind  []analysis.BlindSignal
}

// choose takes the best source that is not blind and has enough settled
// samples to be judged: the service's wait gauge, else tracers the service
// answered, else ingress − served; while none has, the best that exists
// and is not blind (to say what the run is waiting for). A blind source is
// never chosen: its value is not the wait.
func (ws *waitSources) choose(spikeEndS float64, blind map[analysis.WaitSource]string) choice {
	var skipped []string
	var first *analysis.WaitSeries
	var c choice
	for _, src := range analysis.WaitSources {
		if why := blind[src]; why != "" && ws.series[src] != nil {
			c.blind = append(c.blind, analysis.BlindSignal{Source: src, Reason: why})
		}
	}
	for _, src := range analysis.WaitSources {
		s := ws.series[src]
		if s == nil {
			continue
		}
		if why := blind[src]; why != "" {
			skipped = append(skipped, string(src)+" is blind: "+why)
			continue
		}
		if first == nil {
			first = s
		}
		if n := settledPoints(*s, spikeEndS); n >= analysis.MeasuredJudgePolicy.MinPoints {
			c.series, c.reason = *s, chosenReason(src, skipped)
			return c
		}
		switch src {
		case analysis.WaitFromTracers:
			skipped = append(skipped, "too few tracers the service answered after the spike")
		case analysis.WaitFromService:
			skipped = append(skipped, "the wait query had too few settled values")
		}
	}
	switch {
	case first != nil:
		c.series, c.reason = *first, chosenReason(first.Source, nil)
	case len(c.blind) > 0:
		c.reason = "every wait signal the scenario gives is blind: " + strings.Join(skipped, "; ")
	default:
		c.reason = "the scenario gives no wait signal: no wait query, no ingress and served queries, no tracers"
	}
	return c
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

func chosenReason(src analysis.WaitSource, skipped []string) string {
	what := map[analysis.WaitSource]string{
		analysis.WaitFromService: "the service's own wait gauge (the wait query), the best source",
		analysis.WaitFromTracers: "tracers the service answered: each one's latency is the wait it met",
		analysis.WaitFromBacklog: "the backlog integrated from the service's ingress and served rates; it lags by their range windows",
	}[src]
	for _, s := range skipped {
		what += "; not a better source: " + s
	}
	return what
}

// blindMinShare: while first attempts fail by waiting (timeouts, a
// layer's 5xx), the wait is past the patience; a wait signal that stays
// under this share of the patience then does not measure the wait.
const blindMinShare = 0.5

// blindness names the wait sources that cannot show the wait while first
// attempts fail by waiting, each with why (docs/model.md, "What a trigger
// test measures": wait sources): tracers that came back after the spike
// only as server errors or timeouts (a layer gives up on them first, or
// the wait is past their own timeout), and a gauge or an ingress − served
// backlog that stayed under half the patience once it had time to show a
// failed state the clients had seen. A source is judged once its delay
// after the first second that failed so has passed; before, it is not
// blind. now is seconds since the run started.
func (ws *waitSources) blindness(rows []analysis.TimelineRow, spikeStartS, spikeEndS, patienceS, tracerTimeoutS, threshold, now float64) map[analysis.WaitSource]string {
	failedAt, ok := waitFailingSince(rows, spikeStartS, threshold)
	if !ok {
		return nil
	}
	out := map[analysis.WaitSource]string{}
	for src, s := range ws.series {
		due := failedAt + s.DelayS + 2*s.ResolutionS
		if now < due {
			continue
		}
		switch src {
		case analysis.WaitFromTracers:
			if settledPoints(*s, spikeEndS) == 0 {
				if why := tracersBlind(rows, spikeEndS, tracerTimeoutS, now); why != "" {
					out[src] = why
				}
			}
		case analysis.WaitFromService, analysis.WaitFromBacklog:
			peak := math.Inf(-1)
			for i, t := range s.T {
				if t >= spikeStartS && !math.IsNaN(s.W[i]) {
					peak = math.Max(peak, s.W[i])
				}
			}
			if math.IsInf(peak, -1) || peak >= blindMinShare*patienceS {
				continue
			}
			what := "the service's wait gauge"
			if src == analysis.WaitFromBacklog {
				what = "the backlog integrated from ingress − served"
			}
			out[src] = fmt.Sprintf("%s stayed under %s while first attempts failed by waiting, which takes a wait past the patience of %s", what,
				analysis.FormatSeconds(math.Max(peak, 0)), analysis.FormatSeconds(patienceS))
			if src == analysis.WaitFromBacklog {
				out[src] += ": both counters count what the service handles, behind its queue"
			}
		}
	}
	return out
}

// waitFailingSince is the start of the first second from fromS on whose
// first attempts failed beyond the rule (TimelineRow.Failing), mostly by
// waiting: timed out, or a 5xx from a layer that gave up (not refused at
// the door with 503 or 429, not refused connections).
func waitFailingSince(rows []analysis.TimelineRow, fromS, threshold float64) (float64, bool) {
	for _, r := range rows {
		if r.TS+1 <= fromS || !r.Failing(threshold) {
			continue
		}
		if r.Timeouts+r.Errors-r.Connect >= 0.5*r.Failures() {
			return r.TS, true
		}
	}
	return math.NaN(), false
}

// tracersBlind says why the tracers sent after the spike could not see the
// wait: every one that came back was a server error (a layer in front of
// the service gave up on it first), or none came back served within its
// timeout; "" when some were served or it is too early to tell.
func tracersBlind(rows []analysis.TimelineRow, spikeEndS, timeoutS, now float64) string {
	var served, errs, expired float64
	var lat []float64
	for _, r := range rows {
		if r.TS < spikeEndS {
			continue
		}
		served += r.TracerServed
		errs += r.TracerErrors
		if r.TracerErrors > 0 && !math.IsNaN(r.TracerErrorLatencyP50S) {
			lat = append(lat, r.TracerErrorLatencyP50S)
		}
		if r.TS+1+timeoutS < now && !math.IsNaN(r.TracersSent) {
			expired += r.TracersSent
		}
	}
	switch {
	case served > 0.05*errs && served > 0:
		return ""
	case errs > 0 && len(lat) > 0:
		_, med, _ := spread(lat)
		return fmt.Sprintf("after the spike every tracer came back as a server error, after %s (%.0f of them, none served): a layer in front of the service gives up on them first",
			analysis.FormatSeconds(med), errs)
	case errs > 0:
		return fmt.Sprintf("after the spike every tracer came back as a server error (%.0f of them, none served)", errs)
	case expired >= 3 && served == 0:
		return fmt.Sprintf("no tracer sent after the spike came back served within its timeout of %s (%.0f sent): the wait is past it", analysis.FormatSeconds(timeoutS), expired)
	}
	return ""
}
