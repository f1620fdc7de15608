package report

import (
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// fact is one labelled line of what the reports say about the wait signal.
type fact struct{ Label, Value string }

// signalRow is one Prometheus signal of a run, formatted: its name, its
// query's range window (and offset), its scrape interval and how the run
// found it, and its delay after the spike's end.
type signalRow struct{ Name, Range, Scrape, Delay string }

// waitSourceWords names a wait source (analysis.Observation.WaitSource)
// in words.
func waitSourceWords(source analysis.WaitSource) string {
	switch source {
	case analysis.WaitFromService:
		return "the service's wait gauge"
	case analysis.WaitFromTracers:
		return "tracers the service answered"
	case analysis.WaitFromBacklog:
		return "the backlog from ingress − served"
	}
	return string(source)
}

// waitFacts is what the run says about the wait the verdict judged: its
// source and why, its delay after the spike's end (samples before it were
// not judged), with withSlope the slope after the spike and its 95 %
// interval, the patience when shorter than τ_out, and the soonest
// judgement the prediction allowed. Empty for a document that knows none.
func waitFacts(doc analysis.Document, withSlope bool) []fact {
	var out []fact
	obs := doc.Observation
	if obs != nil && obs.WaitSource != "" {
		v := waitSourceWords(obs.WaitSource) + " (" + string(obs.WaitSource) + ")"
		if obs.WaitSourceReason != "" {
			v += ": " + obs.WaitSourceReason
		}
		out = append(out, fact{"Wait judged on", v})
	}
	if obs != nil && obs.Observed != "" {
		out = append(out, fact{"What the clients saw", obs.Observed})
	}
	if obs != nil {
		for _, b := range obs.BlindSignals {
			out = append(out, fact{"Blind, not used: " + waitSourceWords(b.Source) + " (" + string(b.Source) + ")", b.Reason})
		}
	}
	if obs != nil && obs.WaitDelayS != nil {
		out = append(out, fact{"Wait's delay after the spike's end",
			analysis.FormatSeconds(*obs.WaitDelayS) + " (the samples before still carried the spike and were not judged)"})
	}
	if withSlope && obs != nil && obs.WaitSlope != nil {
		out = append(out, fact{"Judged wait slope (A·ρ − 1)", withInterval(obs.WaitSlope, obs.WaitSlopeLo, obs.WaitSlopeHi, "s/s")})
	}
	if p, from := shorterPatience(doc); p > 0 {
		v := shortSeconds(p)
		if from != "" {
			v += ", " + from
		}
		if tau := timeoutS(doc); tau > 0 {
			v += "; shorter than the client timeout τ_out = " + shortSeconds(tau)
		}
		out = append(out, fact{"Patience in front of the service", v})
	}
	if p := doc.Prediction; p.JudgeAfterS != nil {
		v := analysis.FormatSeconds(*p.JudgeAfterS) + " after the spike's end"
		if p.JudgeAfterNote != "" {
			v += " (" + p.JudgeAfterNote + ")"
		}
		out = append(out, fact{"Soonest judgement (predicted)", v})
	}
	return out
}

// signalRows formats the run's Prometheus signals.
func signalRows(obs *analysis.Observation) []signalRow {
	if obs == nil {
		return nil
	}
	out := make([]signalRow, 0, len(obs.Signals))
	for _, s := range obs.Signals {
		r := signalRow{Name: s.Name, Range: analysis.FormatSeconds(s.RangeS), Scrape: analysis.FormatSeconds(s.ScrapeIntervalS),
			Delay: analysis.FormatSeconds(s.DelayS)}
		if s.OffsetS > 0 {
			r.Range += ", offset " + analysis.FormatSeconds(s.OffsetS)
		}
		if s.ScrapeIntervalFrom != "" {
			r.Scrape += " (" + s.ScrapeIntervalFrom + ")"
		}
		out = append(out, r)
	}
	return out
}

// firstFailedText is the first attempts that failed, split by class:
// "1234: 1000 timed out, 200 with an error status, 34 connection refused
// or reset"; "" when the run did not count them.
func firstFailedText(obs *analysis.Observation) string {
	if obs == nil || obs.FirstFailed == nil {
		return ""
	}
	var parts []string
	for _, c := range []struct {
		n    *float64
		what string
	}{
		{obs.FirstTimedOut, "timed out"},
		{obs.FirstErrors, "with an error status"},
		{obs.FirstConnect, "connection refused or reset"},
	} {
		if c.n != nil {
			parts = append(parts, num(*c.n)+" "+c.what)
			if c.n == obs.FirstErrors && obs.FirstAuth != nil {
				parts[len(parts)-1] += " (" + num(*obs.FirstAuth) + " of them 401 or 403: credentials refused)"
			}
		}
	}
	s := num(*obs.FirstFailed)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}
