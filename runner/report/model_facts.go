package report

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// modelFacts are the lines that say which model the figures rest on and
// what held a failed service down, from result.json's latency_law and
// observation.sustained_by (docs/model.md, "Latency laws and what
// sustains a trap").
func modelFacts(doc analysis.Document) []string {
	var out []string
	if l := doc.LatencyLaw; l != nil {
		out = append(out, "Latency law: "+LawText(*l))
	}
	if o := doc.Observation; o != nil && o.SustainedBy != nil {
		s := o.SustainedBy
		out = append(out, fmt.Sprintf("Held down by: %s. %s", sustainingName(s.Effect), s.Note))
	}
	return out
}

// sustainingName is a sustaining effect in words.
func sustainingName(e analysis.SustainingEffect) string {
	switch e {
	case analysis.SustainedByRetries:
		return "retries"
	case analysis.SustainedByLostCapacity:
		return "lost capacity"
	case analysis.SustainedByBoth:
		return "retries and lost capacity"
	}
	return "not known"
}

// LawText prints a latency law in a line: "queue (L = max(L₀, N/C)),
// L₀ = 10 ms, C = 200.0/s, fitted on 24 s, R² = 0.99: …".
func LawText(l analysis.LatencyLaw) string {
	form := " (L = max(L₀, N/C))"
	if !l.Queue() {
		form = " (L = L₀ + N/C)"
	}
	s := l.Kind.String() + form + ", no floor"
	if l.FloorS > 0 {
		s = l.Kind.String() + form + ", L₀ = " + floorText(l.FloorS)
	}
	if c := l.CapacityPerS; c > 0 && !math.IsInf(c, 0) {
		s += fmt.Sprintf(", C = %.1f/s", c)
	}
	s += ", " + string(l.Source)
	if r := l.FitR2; l.Source == analysis.LawFitted && !math.IsNaN(r) && !math.IsInf(r, 0) {
		s += fmt.Sprintf(" on %d s, R² = %.2f", l.Points, r)
	}
	if l.Note != "" {
		s += ": " + l.Note
	}
	return s
}

// floorText prints a latency floor: "12 ms" below a second, else as
// analysis.FormatSeconds does.
func floorText(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", 1000*s)
	}
	return analysis.FormatSeconds(s)
}
