package cli

import (
	"fmt"

	"github.com/trigger-test/trigger/analysis"
)

// latencyLines are a run's first-attempt latency by phase for people, one
// line a phase: "warmup   p50 12 ms   p95 30 ms   p99 41 ms (600 first
// attempts)", the successes' apart when some failed; a fleet's run says
// it has none; nil for a plan or a model.
func latencyLines(doc analysis.Document) []string {
	o := doc.Observation
	if o == nil {
		return nil
	}
	if o.LatencyByPhase == nil && doc.Fleet != nil {
		return []string{"by phase not measured: the agents' histograms are not merged"}
	}
	var out []string
	for _, l := range o.LatencyByPhase {
		name := string(l.Phase)
		if l.Phase == analysis.PhaseSpike && doc.Scenario.Fault != nil {
			name = "fault" // the reports name it so too
		}
		line := fmt.Sprintf("%-8s %s", name, percentilesText(l.LatencyPercentiles))
		switch s := l.Succeeded; {
		case l.Attempts == 0:
		case s.Attempts == 0:
			line += fmt.Sprintf(" (%d first attempts, none succeeded)", l.Attempts)
		case s.Attempts < l.Attempts:
			line += fmt.Sprintf(" (%d first attempts); the %d that succeeded: %s", l.Attempts, s.Attempts, percentilesText(s))
		default:
			line += fmt.Sprintf(" (%d first attempts)", l.Attempts)
		}
		out = append(out, line)
	}
	return out
}

// percentilesText is "p50 12 ms   p95 30 ms   p99 41 ms", or "no first
// attempts".
func percentilesText(p analysis.LatencyPercentiles) string {
	if p.Attempts == 0 || p.P50S == nil || p.P95S == nil || p.P99S == nil {
		return "no first attempts"
	}
	return fmt.Sprintf("p50 %s   p95 %s   p99 %s", latencyText(*p.P50S), latencyText(*p.P95S), latencyText(*p.P99S))
}

// latencyText is a latency in milliseconds below 1 s, else in seconds.
func latencyText(s float64) string {
	if s < 1 {
		return num(1000*s) + " ms"
	}
	return num(s) + " s"
}
