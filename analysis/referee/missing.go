package referee

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// maxMissingShare is the share of the judged window's seconds that may
// lack some of the service's metrics before the run refuses a verdict: a
// verdict is a claim about evidence, and evidence that is mostly missing
// is not evidence.
const maxMissingShare = 0.25

// metricsMissing says why the run cannot stand behind a verdict because
// Prometheus left too many seconds without values ("" when it can): more
// than maxMissingShare of the seconds from the spike's start on (from the
// first second when there was no spike) missed at least one query.
func (r *Referee) metricsMissing() string {
	if !r.cfg.Metrics {
		return ""
	}
	from := 0.0
	if !math.IsNaN(r.spikeStart) {
		from = math.Floor(r.spikeStart)
	}
	var n, missing int
	for _, row := range r.rows {
		if row.TS < from {
			continue
		}
		n++
		if row.MetricsMissing > 0 {
			missing++
		}
	}
	if n == 0 || float64(missing) <= maxMissingShare*float64(n) {
		return ""
	}
	which := ""
	if gaps := r.gaps(); len(gaps) > 0 {
		which = " (" + strings.Join(gaps, ", ") + ")"
	}
	return fmt.Sprintf("Prometheus left %d of the %d seconds judged without some of the service's metrics%s, more than a quarter: no verdict rests on missing data", missing, n, which)
}

// gaps names the queries that had no value for more than a tenth of the
// seconds read, with how many they missed.
func (r *Referee) gaps() []string {
	if !r.cfg.Metrics || len(r.rows) == 0 {
		return nil
	}
	var out []string
	for _, q := range r.sigs {
		col := queryColumn(q.Name)
		if col == nil {
			continue
		}
		n := 0
		for _, row := range r.rows {
			if math.IsNaN(col(row)) {
				n++
			}
		}
		if n*10 > len(r.rows) {
			out = append(out, fmt.Sprintf("%s (%d of %d seconds)", q.Name, n, len(r.rows)))
		}
	}
	return out
}

// queryColumn is the timeline column a query of the service fills (nil
// for a name that has none).
func queryColumn(name string) func(analysis.TimelineRow) float64 {
	switch name {
	case "ingress":
		return func(m analysis.TimelineRow) float64 { return m.IngressPerS }
	case "first_attempts":
		return func(m analysis.TimelineRow) float64 { return m.ServiceFirstPerS }
	case "served":
		return func(m analysis.TimelineRow) float64 { return m.ServedPerS }
	case "abandoned":
		return func(m analysis.TimelineRow) float64 { return m.AbandonedPerS }
	case "wait":
		return func(m analysis.TimelineRow) float64 { return m.WaitS }
	case "pods":
		return func(m analysis.TimelineRow) float64 { return m.Pods }
	}
	return nil
}
