package referee

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// row is one second of a failed state behind a proxy that answers 504
// after 0.9 s: every first attempt failed with an error status.
func proxyRow(ts float64) analysis.TimelineRow {
	return analysis.TimelineRow{TS: ts, Sent: 50, FirstDone: 50, FirstErrors: 50,
		ErrorLatencyP10S: 0.89, ErrorLatencyP50S: 0.9, ErrorLatencyP90S: 0.92,
		TracerErrors: 4, TracerErrorLatencyP50S: 0.9, TracerWaitS: math.NaN(),
		WaitS: math.NaN(), IngressPerS: 450, ServedPerS: 200}
}

// The judge takes the best wait source with enough settled samples: the
// service's gauge, else tracers the service answered, else ingress −
// served; and says why it passed over a better one.
func TestWaitSourceChoice(t *testing.T) {
	delays := map[analysis.WaitSource]float64{analysis.WaitFromService: 3, analysis.WaitFromTracers: 2, analysis.WaitFromBacklog: 22}
	res := map[analysis.WaitSource]float64{analysis.WaitFromService: 5, analysis.WaitFromTracers: 1, analysis.WaitFromBacklog: 5}
	for _, tc := range []struct {
		name   string
		fill   func(*analysis.TimelineRow)
		want   analysis.WaitSource
		reason string
	}{
		{"gauge", func(m *analysis.TimelineRow) { m.WaitS = 40 + m.TS }, analysis.WaitFromService, "wait gauge"},
		{"tracers served", func(m *analysis.TimelineRow) { m.TracerServed, m.TracerWaitS = 4, 2 }, analysis.WaitFromTracers, "tracers the service answered"},
		{"tracers blind", func(*analysis.TimelineRow) {}, analysis.WaitFromBacklog, "gives up on them first"},
	} {
		ws := newWaitSources(delays, res, 200)
		var rows []analysis.TimelineRow
		for ts := 0.0; ts < 60; ts++ {
			m := proxyRow(ts)
			tc.fill(&m)
			ws.add(&m, 10)
			rows = append(rows, m)
		}
		c := ws.choose(20, ws.blindness(rows, 10, 20, 0.3, 30, 0.99, 60))
		if c.series.Source != tc.want || !strings.Contains(c.reason, tc.reason) {
			t.Errorf("%s: chose %q (%s); want %q, a reason with %q", tc.name, c.series.Source, c.reason, tc.want, tc.reason)
		}
	}
}

// A source that cannot move while first attempts fail by waiting is blind:
// it is named with why, never chosen, and the next source is judged; a
// source is not called blind before its delay has passed, nor while the
// failures are refusals at the door, which need no queue.
func TestBlindSourcesAreNeverJudged(t *testing.T) {
	delays := map[analysis.WaitSource]float64{analysis.WaitFromService: 3, analysis.WaitFromTracers: 2, analysis.WaitFromBacklog: 22}
	res := map[analysis.WaitSource]float64{analysis.WaitFromService: 5, analysis.WaitFromTracers: 1, analysis.WaitFromBacklog: 5}
	// Timeouts at the client from second 12 on.
	timedOut := func(m *analysis.TimelineRow) {
		m.FirstErrors, m.TracerErrors, m.FirstTimeouts, m.Timeouts = 0, 0, 50, 150
		m.ErrorLatencyP50S, m.TracerErrorLatencyP50S = math.NaN(), math.NaN()
	}
	for _, tc := range []struct {
		name  string
		fill  func(*analysis.TimelineRow)
		now   float64
		blind []analysis.WaitSource // the sources found blind
		want  analysis.WaitSource   // the source chosen
	}{
		{"counters behind the queue, a flat gauge, tracers timing out", func(m *analysis.TimelineRow) {
			timedOut(m)
			m.WaitS, m.IngressPerS, m.ServedPerS, m.TracersSent = 0.01, 100, 100, 4
		}, 60, []analysis.WaitSource{analysis.WaitFromService, analysis.WaitFromTracers, analysis.WaitFromBacklog}, ""},
		{"the same, before the backlog's delay has passed", func(m *analysis.TimelineRow) {
			timedOut(m)
			m.WaitS, m.IngressPerS, m.ServedPerS, m.TracersSent = 0.01, 100, 100, 4
		}, 40, []analysis.WaitSource{analysis.WaitFromService, analysis.WaitFromTracers}, analysis.WaitFromBacklog},
		{"a gauge that shows the wait", func(m *analysis.TimelineRow) {
			timedOut(m)
			m.WaitS, m.IngressPerS, m.ServedPerS = 2+m.TS/10, 100, 100
		}, 60, []analysis.WaitSource{analysis.WaitFromBacklog}, analysis.WaitFromService},
		{"refusals at the door", func(m *analysis.TimelineRow) {
			m.FirstErrors, m.Errors, m.Rejected, m.TracerErrors = 50, 0, 150, 0
			m.WaitS, m.IngressPerS, m.ServedPerS = 0.1, 100, 100
		}, 60, nil, analysis.WaitFromService},
	} {
		ws := newWaitSources(delays, res, 200)
		var rows []analysis.TimelineRow
		for ts := 0.0; ts < tc.now; ts++ {
			m := proxyRow(ts)
			if ts < 12 {
				m.FirstErrors, m.TracerErrors, m.WaitS, m.IngressPerS, m.ServedPerS = 0, 0, 0.01, 100, 100
				m.FirstOK = m.FirstDone
			} else {
				tc.fill(&m)
			}
			ws.add(&m, 10)
			rows = append(rows, m)
		}
		blind := ws.blindness(rows, 10, 20, 1, 5, 0.99, tc.now)
		var got []analysis.WaitSource
		for _, src := range analysis.WaitSources {
			if blind[src] != "" {
				got = append(got, src)
			}
		}
		c := ws.choose(20, blind)
		if !slices.Equal(got, tc.blind) || c.series.Source != tc.want || len(c.blind) != len(tc.blind) {
			t.Errorf("%s: blind %v, chose %q; want blind %v, %q (%v)", tc.name, got, c.series.Source, tc.blind, tc.want, blind)
		}
	}
}

// The backlog integral starts at the spike and clamps at zero.
func TestBacklogIntegral(t *testing.T) {
	ws := newWaitSources(map[analysis.WaitSource]float64{analysis.WaitFromBacklog: 0}, map[analysis.WaitSource]float64{analysis.WaitFromBacklog: 1}, 200)
	for ts, in := range []float64{100, 300, 300, 0, 0} {
		m := analysis.TimelineRow{TS: float64(ts), IngressPerS: in, ServedPerS: 200, WaitS: math.NaN()}
		ws.add(&m, 1)
		want := []float64{math.NaN(), 0.5, 1, 0, 0}[ts]
		if !(m.BacklogWaitS == want || math.IsNaN(want) && math.IsNaN(m.BacklogWaitS)) {
			t.Errorf("second %d: backlog %v, want %v", ts, m.BacklogWaitS, want)
		}
	}
}

// A layer that answers every failure with a 5xx at a nearly fixed latency
// before the clients' timeout is a layer that gives up first; timeouts at
// the client, fast refusals or scattered latencies are not.
func TestLayerGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*analysis.TimelineRow)
		ok   bool
	}{
		{"proxy 504 after 0.9 s", func(*analysis.TimelineRow) {}, true},
		{"timeouts at the client", func(m *analysis.TimelineRow) { m.FirstErrors, m.FirstTimeouts = 0, 50 }, false},
		{"fast refusals at the door", func(m *analysis.TimelineRow) {
			m.ErrorLatencyP10S, m.ErrorLatencyP50S, m.ErrorLatencyP90S = 0.001, 0.001, 0.002
		}, false},
		{"scattered latencies", func(m *analysis.TimelineRow) { m.ErrorLatencyP10S, m.ErrorLatencyP90S = 0.2, 0.9 }, false},
	} {
		var rows []analysis.TimelineRow
		for ts := 0.0; ts < 20; ts++ {
			m := proxyRow(ts)
			tc.edit(&m)
			rows = append(rows, m)
		}
		g, ok := layerGivesUp(rows, 0, 20, 1)
		if ok != tc.ok {
			t.Errorf("%s: gives up %v, want %v", tc.name, ok, tc.ok)
		}
		if ok && (g.latencyS != 0.9 || !near(g.patience(3.02), 0.3)) {
			t.Errorf("%s: latency %v, patience with 3 tries %v; want 0.9 s and 0.3 s", tc.name, g.latencyS, g.patience(3.02))
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
