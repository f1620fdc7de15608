package report

import (
	"math"
	"sort"

	"github.com/trigger-test/trigger/analysis"
)

// timelineView is the run's timeline as the chart needs it.
type timelineView struct {
	x                    []float64 // middle of each row, seconds since the run started
	width                float64   // seconds per row
	xmin, xmax           float64   // start (0 but in a comparison) and end of the time axis, seconds
	xlabel               string    // the time axis' label; "" for the time since the run started
	spikeStart, spikeEnd float64   // NaN when unknown
	bands                []band
}

// newTimelineView places the rows on the time axis and finds the phases
// and the spike.
func newTimelineView(doc analysis.Document, rows []analysis.TimelineRow) timelineView {
	v := timelineView{width: rowWidth(rows), spikeStart: math.NaN(), spikeEnd: math.NaN()}
	v.x = make([]float64, len(rows))
	for i, m := range rows {
		v.x[i] = m.TS + v.width/2
		v.xmax = math.Max(v.xmax, m.TS+v.width)
	}
	obs := doc.Observation
	if obs != nil && finite(obs.EndS) {
		v.xmax = math.Max(v.xmax, obs.EndS)
	}
	// The spike: as the run recorded it, else as the rows are tagged, else
	// as a model schedules it (after the warmup).
	switch {
	case obs != nil && obs.SpikeStartS != nil:
		v.spikeStart = *obs.SpikeStartS
		v.spikeEnd = analysis.Value(obs.SpikeEndS)
	case hasPhase(rows, analysis.PhaseSpike):
		for _, m := range rows {
			if m.Phase == analysis.PhaseSpike {
				if !finite(v.spikeStart) {
					v.spikeStart = m.TS
				}
				v.spikeEnd = m.TS + v.width
			}
		}
	case doc.Kind != "run" && doc.Scenario.SpikeS > 0:
		v.spikeStart = doc.Scenario.WarmupS
		v.spikeEnd = doc.Scenario.WarmupS + doc.Scenario.SpikeS
	}
	if v.xmax <= 0 {
		v.xmax = doc.Scenario.WarmupS + doc.Scenario.SpikeS + doc.Scenario.ObserveS
	}
	if v.xmax <= 0 {
		v.xmax = 1
	}
	v.bands = phaseBands(rows, v)
	return v
}

// phaseBands are the runs of rows in the same phase; without rows, the
// warmup, spike and observation around the known spike.
func phaseBands(rows []analysis.TimelineRow, v timelineView) []band {
	var out []band
	for _, m := range rows {
		if n := len(out); n > 0 && out[n-1].name == m.Phase {
			out[n-1].to = m.TS + v.width
			continue
		}
		if _, ok := phaseFill[m.Phase]; ok {
			out = append(out, band{name: m.Phase, from: m.TS, to: m.TS + v.width, fill: phaseFill[m.Phase]})
		} else if n := len(out); n > 0 {
			out[n-1].to = m.TS + v.width // an unknown phase joins the one before
		}
	}
	if len(rows) == 0 && finite(v.spikeStart) && finite(v.spikeEnd) {
		out = []band{
			{name: analysis.PhaseWarmup, from: 0, to: v.spikeStart},
			{name: analysis.PhaseSpike, from: v.spikeStart, to: v.spikeEnd},
			{name: analysis.PhaseObserve, from: v.spikeEnd, to: v.xmax},
		}
		for i := range out {
			out[i].fill = phaseFill[out[i].name]
		}
	}
	// One legend entry per phase, however often it recurs.
	seen := map[analysis.Phase]bool{}
	for i := range out {
		if seen[out[i].name] {
			out[i].name = ""
		}
		seen[out[i].name] = true
	}
	return out
}

// verdictMoment is when the verdict was reached, seconds since the run
// started, and its label: the recovery (spike end + recovery_s), or the
// moment the run judged the service trapped or metastable (judged_s; for
// older documents when on_trap started, else the end of the observation).
// NaN when there is none.
func verdictMoment(doc analysis.Document, v timelineView, rows []analysis.TimelineRow) (float64, string) {
	switch doc.Verdict {
	case analysis.VerdictRecovered:
		if doc.RecoveryS == nil || !finite(v.spikeEnd) {
			return math.NaN(), ""
		}
		return v.spikeEnd + *doc.RecoveryS, "recovered after " + analysis.FormatSeconds(*doc.RecoveryS)
	case analysis.VerdictTrapped, analysis.VerdictMetastable:
		word := string(doc.Verdict)
		if o := doc.Observation; o != nil && o.JudgedS != nil && finite(v.spikeEnd) {
			return v.spikeEnd + *o.JudgedS, word
		}
		if ot := obsOnTrap(doc); ot != nil && finite(v.spikeEnd) {
			return v.spikeEnd + ot.AtS, word
		}
		end := math.NaN()
		for _, m := range rows {
			if m.Phase != analysis.PhaseOnTrap {
				end = m.TS + v.width
			}
		}
		if doc.Observation != nil && doc.Kind == "run" && (!finite(end) || doc.Observation.EndS < end) {
			end = doc.Observation.EndS
		}
		if !finite(end) {
			end = v.xmax
		}
		return end, word
	}
	return math.NaN(), ""
}

// rowWidth is the seconds each row covers: the median step between rows,
// one second when it cannot be told.
func rowWidth(rows []analysis.TimelineRow) float64 {
	var d []float64
	for i := 1; i < len(rows); i++ {
		if s := rows[i].TS - rows[i-1].TS; s > 0 && finite(s) {
			d = append(d, s)
		}
	}
	if len(d) == 0 {
		return 1
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

func anyKnown(rows []analysis.TimelineRow, of func(analysis.TimelineRow) float64) bool {
	for _, m := range rows {
		if finite(of(m)) {
			return true
		}
	}
	return false
}

func hasPhase(rows []analysis.TimelineRow, phase analysis.Phase) bool {
	for _, m := range rows {
		if m.Phase == phase {
			return true
		}
	}
	return false
}

// timeoutS is τ_out in seconds (0 when unknown).
func timeoutS(doc analysis.Document) float64 {
	if doc.Scenario.TimeoutS > 0 {
		return doc.Scenario.TimeoutS
	}
	return doc.Trigger.TimeoutS
}

func obsOnTrap(doc analysis.Document) *analysis.OnTrapResult {
	if doc.Observation == nil {
		return nil
	}
	return doc.Observation.OnTrap
}
