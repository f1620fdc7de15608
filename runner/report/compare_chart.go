package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/trigger-test/trigger/analysis"
)

// Classes of the comparison chart's series (see the Series* constants).
const (
	SeriesBaseOK       = "baseline-ok"       // the baseline's attempts answered ok per second
	SeriesBaseFailed   = "baseline-failed"   // the baseline's first attempts that failed per second
	SeriesBaseWait     = "baseline-wait"     // the baseline's judged wait, seconds
	SeriesCandOK       = "candidate-ok"      // the candidate's attempts answered ok per second
	SeriesCandFailed   = "candidate-failed"  // the candidate's first attempts that failed per second
	SeriesCandWait     = "candidate-wait"    // the candidate's judged wait, seconds
	SeriesBaseVerdict  = "baseline-verdict"  // the baseline's verdict marker
	SeriesCandVerdict  = "candidate-verdict" // the candidate's verdict marker
	SeriesSpikeAligned = "spike-start"       // the spike's start, where both timelines are aligned
)

// The comparison's colours: the baseline in blues, the candidate in
// oranges (Okabe–Ito), so either run reads as one family of lines.
var (
	colBaseOK     = rgb(0x00, 0x72, 0xB2) // Okabe–Ito blue
	colBaseFailed = rgb(0x56, 0xB4, 0xE9) // Okabe–Ito sky blue
	colBaseWait   = rgb(0x33, 0x22, 0x88) // Tol indigo
	colCandOK     = rgb(0xD5, 0x5E, 0x00) // Okabe–Ito vermillion
	colCandFailed = rgb(0xE6, 0x9F, 0x00) // Okabe–Ito orange
	colCandWait   = rgb(0xCC, 0x79, 0xA7) // Okabe–Ito reddish purple
	colBaseMark   = rgb(0x1F, 0x4E, 0x79)
	colCandMark   = rgb(0x9A, 0x3B, 0x00)
)

// comparedRun is one run of a comparison as the overlay draws it: its
// rows placed on a time axis that starts at its spike (or fault).
type comparedRun struct {
	who  string // "baseline" or "candidate"
	doc  analysis.Document
	rows []analysis.TimelineRow
	v    timelineView
	at   float64 // the spike's (or fault's) start, seconds since the run started
}

// alignedRun places a run's rows with x = seconds since its spike (or its
// fault) started; an error when that moment is unknown.
func alignedRun(who string, doc analysis.Document, rows []analysis.TimelineRow) (comparedRun, error) {
	if err := checkRows(rows); err != nil {
		return comparedRun{}, fmt.Errorf("%s: %w", who, err)
	}
	r := comparedRun{who: who, doc: doc, rows: rows, v: newTimelineView(doc, rows)}
	r.at = r.v.spikeStart
	if o := doc.Observation; o != nil && o.Fault != nil && o.Fault.StartedS != nil {
		r.at = *o.Fault.StartedS
	}
	if !finite(r.at) {
		return comparedRun{}, fmt.Errorf("chart: the %s's spike start is unknown: its timeline cannot be aligned", who)
	}
	for i := range r.v.x {
		r.v.x[i] -= r.at
	}
	return r, nil
}

// CompareChart overlays the timelines of a baseline and a candidate run,
// aligned at their spikes' start (0 on the time axis, seconds since it):
// on top each run's attempts answered ok and first attempts failed per
// second, below each run's judged wait against τ_out, each run's spike end
// and verdict marked. The baseline is drawn in blues, the candidate in
// oranges. It fails when a timeline is out of order or a run's spike start
// is unknown.
func CompareChart(base, cand analysis.Document, baseRows, candRows []analysis.TimelineRow) (*Chart, error) {
	b, err := alignedRun("baseline", base, baseRows)
	if err != nil {
		return nil, err
	}
	c, err := alignedRun("candidate", cand, candRows)
	if err != nil {
		return nil, err
	}
	xmin := math.Min(-b.at, -c.at)
	xmax := math.Max(b.v.xmax-b.at, c.v.xmax-c.at)
	ch := &Chart{Title: "“" + scenarioName(cand) + "”: baseline " + verdictHeadline(base) + "; candidate " + verdictHeadline(cand),
		classes: map[string]string{}}
	spike := band{name: analysis.PhaseSpike, from: 0, to: b.v.spikeEnd - b.at, fill: phaseFill[analysis.PhaseSpike]}
	if !finite(spike.to) {
		spike.to = 0
	}
	axes := timelineView{bands: []band{spike}}

	rates := ch.newPanel(axes, "per second", 0.6)
	waits := ch.newPanel(axes, "wait (s)", 0.4)
	for _, r := range []struct {
		run                 comparedRun
		ok, failed, wait    string
		okC, failedC, waitC color.RGBA
	}{
		{b, SeriesBaseOK, SeriesBaseFailed, SeriesBaseWait, colBaseOK, colBaseFailed, colBaseWait},
		{c, SeriesCandOK, SeriesCandFailed, SeriesCandWait, colCandOK, colCandFailed, colCandWait},
	} {
		ch.addSeries(rates, r.run.v, r.run.rows, r.ok, r.run.who+": answered ok", solid(r.okC), func(m analysis.TimelineRow) float64 { return m.OK })
		ch.addSeries(rates, r.run.v, r.run.rows, r.failed, r.run.who+": first attempts failed", dashed(r.failedC),
			func(m analysis.TimelineRow) float64 { return m.FirstFailed() })
		w, _ := chartWait(r.run.doc, r.run.rows)
		ch.addSeries(waits, r.run.v, r.run.rows, r.wait, r.run.who+": "+w.label, solid(r.waitC), w.of)
	}
	rates.legend.Add("the baseline's spike", spike)
	if tau := timeoutS(cand); tau > 0 {
		ch.addLimit(waits, SeriesTimeout, "client timeout τ_out = "+shortSeconds(tau), tau,
			draw.LineStyle{Color: colTimeout, Width: 1.2, Dashes: []vg.Length{6, 3}})
	}
	// One spike end when both runs' spikes lasted as long (the same test).
	sameEnd := math.Abs((b.v.spikeEnd-b.at)-(c.v.spikeEnd-c.at)) < 0.5
	baseEnd, candEnd := "spike end", ""
	if !sameEnd {
		baseEnd, candEnd = "baseline spike end", "candidate spike end"
	}
	ch.addAlignedMarkers(b, SeriesBaseVerdict, colBaseMark, baseEnd)
	ch.addAlignedMarkers(c, SeriesCandVerdict, colCandMark, candEnd)
	ch.finishAxes(timelineView{xmin: xmin, xmax: xmax, xlabel: "time since the spike started (s)"})
	if len(baseRows) == 0 || len(candRows) == 0 {
		rates.plot.Add(corner{"a run without timeline.csv is not drawn"})
	}
	if ch.leftOut > 0 {
		rates.plot.Add(corner{fmt.Sprintf("%d values left out: infinite or beyond %.0e", ch.leftOut, maxPlotted)})
	}
	return ch, nil
}

// addAlignedMarkers draws a run's spike start (once, for the baseline),
// its spike end labelled endLabel (none when endLabel is "": the other
// run's marks it) and its verdict on both panels, the labels on the top
// one.
func (ch *Chart) addAlignedMarkers(r comparedRun, verdictClass string, col color.RGBA, endLabel string) {
	label := text.Style{Color: col, Font: font.From(fontRegular, 8), Handler: plot.DefaultTextHandler}
	var marks []vline
	if r.who == "baseline" {
		marks = append(marks, vline{x: 0, label: "spike start", style: draw.LineStyle{Color: colSpike, Width: 1, Dashes: []vg.Length{3, 2}},
			text: text.Style{Color: colSpike, Font: font.From(fontRegular, 8), Handler: plot.DefaultTextHandler}})
		ch.register(SeriesSpikeAligned, colSpike)
	}
	if end := r.v.spikeEnd - r.at; finite(end) && endLabel != "" {
		marks = append(marks, vline{x: end, label: endLabel, style: draw.LineStyle{Color: col, Width: 1, Dashes: []vg.Length{3, 2}}, text: label})
	}
	if at, what := verdictMoment(r.doc, r.v, r.rows); finite(at) {
		bold := label
		bold.Font = font.From(fontBold, 9)
		marks = append(marks, vline{x: at - r.at, label: r.who + ": " + what, style: draw.LineStyle{Color: col, Width: 2}, text: bold})
		ch.register(verdictClass, col)
	}
	for i := range ch.panels {
		for _, m := range marks {
			if i > 0 {
				m.label = ""
			}
			ch.panels[i].plot.Add(m)
		}
	}
}
