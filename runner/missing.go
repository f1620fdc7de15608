package runner

import (
	"fmt"
	"math"
	"strings"
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
func (r *run) metricsMissing() string {
	if r.mets == nil {
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
	if gaps := r.mets.gaps(); len(gaps) > 0 {
		which = " (" + strings.Join(gaps, ", ") + ")"
	}
	return fmt.Sprintf("Prometheus left %d of the %d seconds judged without some of the service's metrics%s, more than a quarter: no verdict rests on missing data", missing, n, which)
}
