package report

import (
	"strconv"

	"github.com/trigger-test/trigger/analysis"
)

// latencyTitle heads the table of the first attempts' latency by phase in
// report.html and report.md.
const latencyTitle = "Latency of first attempts by phase"

// latencyNotMeasured is what report.html and report.md say in place of the
// table for a run spread over agents (fleet mode), whose result has no
// latency by phase.
const latencyNotMeasured = "Not measured: a run spread over agents does not merge their drivers' latency histograms."

// latencyRow is one phase of the latency table, formatted: the phase as
// the reports name it ("fault" for the spike of a fault), its first
// attempts and their 50th, 95th and 99th percentiles (latencySeconds;
// unknown with no attempts), and the same over the first attempts that
// succeeded.
type latencyRow struct {
	Phase, Attempts, P50, P95, P99                      string
	Succeeded, SucceededP50, SucceededP95, SucceededP99 string
}

// latencyTable is the table of a run's first-attempt latency by phase
// (Observation.LatencyByPhase): its rows in the document's order, with
// the successes' columns only when some first attempt failed (WithSucceeded),
// or, for a fleet's run, NotMeasured in its place.
type latencyTable struct {
	Rows          []latencyRow
	WithSucceeded bool
	NotMeasured   string
}

// newLatencyTable is the latency table of doc; nil when the document has
// no latency by phase and is not a fleet's run (a plan, a model, a run
// recorded before the figure existed).
func newLatencyTable(doc analysis.Document) *latencyTable {
	obs := doc.Observation
	if obs == nil {
		return nil
	}
	if len(obs.LatencyByPhase) == 0 {
		if doc.Fleet != nil {
			return &latencyTable{NotMeasured: latencyNotMeasured}
		}
		return nil
	}
	t := &latencyTable{}
	for _, l := range obs.LatencyByPhase {
		name := string(l.Phase)
		if l.Phase == analysis.PhaseSpike && doc.Scenario.Fault != nil {
			name = "fault"
		}
		s := l.Succeeded
		t.Rows = append(t.Rows, latencyRow{
			Phase: name, Attempts: strconv.FormatInt(l.Attempts, 10),
			P50: latencySeconds(l.P50S), P95: latencySeconds(l.P95S), P99: latencySeconds(l.P99S),
			Succeeded:    strconv.FormatInt(s.Attempts, 10),
			SucceededP50: latencySeconds(s.P50S), SucceededP95: latencySeconds(s.P95S), SucceededP99: latencySeconds(s.P99S),
		})
		if s.Attempts != l.Attempts {
			t.WithSucceeded = true
		}
	}
	return t
}

// Header is the table's header: phase, first attempts, p50, p95, p99,
// and the successes' count and percentiles when shown.
func (t latencyTable) Header() []string {
	h := []string{"phase", "first attempts", "p50", "p95", "p99"}
	if t.WithSucceeded {
		h = append(h, "succeeded", "p50 succeeded", "p95 succeeded", "p99 succeeded")
	}
	return h
}

// Cells are the table's rows, their cells in the header's order.
func (t latencyTable) Cells() [][]string {
	var out [][]string
	for _, r := range t.Rows {
		c := []string{r.Phase, r.Attempts, r.P50, r.P95, r.P99}
		if t.WithSucceeded {
			c = append(c, r.Succeeded, r.SucceededP50, r.SucceededP95, r.SucceededP99)
		}
		out = append(out, c)
	}
	return out
}
