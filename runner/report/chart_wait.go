package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/trigger-test/trigger/analysis"
)

// waitColumn is one wait signal of the timeline, in seconds: the column
// that holds it and how the chart names it.
type waitColumn struct {
	source analysis.WaitSource // analysis.Observation.WaitSource for it; "" for a model's wait
	label  string
	of     func(analysis.TimelineRow) float64
}

// waitColumns are the timeline's wait signals, best first: the order a
// document without a wait source (a model, an older run) falls back in.
var waitColumns = []waitColumn{
	{analysis.WaitFromService, "queue wait at the service (wait gauge)", func(m analysis.TimelineRow) float64 { return m.WaitS }},
	{analysis.WaitFromTracers, "wait seen by tracers the service answered", func(m analysis.TimelineRow) float64 { return m.TracerWaitS }},
	{analysis.WaitFromBacklog, "backlog from ingress − served (lags by its rate windows)", func(m analysis.TimelineRow) float64 { return m.BacklogWaitS }},
}

// modelWait is a model's own wait, the WaitS of its rows.
var modelWait = waitColumn{"", "queue wait in the model", func(m analysis.TimelineRow) float64 { return m.WaitS }}

// chartWait is the wait the chart draws and whether it is the one the
// verdict judged (doc.Observation.WaitSource). A document that names no
// source draws a model's wait, else the first column with data; so does
// one whose judged column the rows do not have (an older timeline.csv).
func chartWait(doc analysis.Document, rows []analysis.TimelineRow) (waitColumn, bool) {
	if o := doc.Observation; o != nil && o.WaitSource != "" {
		for _, c := range waitColumns {
			if c.source == o.WaitSource && anyKnown(rows, c.of) {
				return c, true
			}
		}
	} else if doc.Kind == "simulate" {
		return modelWait, false
	}
	for _, c := range waitColumns {
		if anyKnown(rows, c.of) {
			return c, false
		}
	}
	return waitColumns[0], false
}

// waitSettledS is when the judged wait settled, seconds since the run
// started: the spike's end plus the signal's delay (WaitDelayS); NaN when
// either is unknown.
func waitSettledS(doc analysis.Document, v timelineView) float64 {
	if o := doc.Observation; o != nil && o.WaitDelayS != nil && finite(v.spikeEnd) {
		return v.spikeEnd + *o.WaitDelayS
	}
	return math.NaN()
}

// patience is the shortest patience in front of the service, seconds, and
// what sets it: the run's (measured or declared), else the scenario's; 0
// when neither is known.
func patience(doc analysis.Document) (float64, string) {
	if o := doc.Observation; o != nil && o.PatienceS != nil && *o.PatienceS > 0 {
		return *o.PatienceS, o.PatienceFrom
	}
	if doc.Scenario.PatienceS > 0 {
		return doc.Scenario.PatienceS, doc.Scenario.PatienceFrom
	}
	return 0, ""
}

// shorterPatience is the patience when it is shorter than τ_out (then the
// wait fails attempts before the clients time out), 0 otherwise.
func shorterPatience(doc analysis.Document) (float64, string) {
	p, from := patience(doc)
	if tau := timeoutS(doc); p > 0 && (tau <= 0 || p < tau) {
		return p, from
	}
	return 0, ""
}

// addWaitPanel draws the wait the verdict judged, named by its source,
// against the client timeout τ_out and, when shorter, the patience; and
// when the judged wait settled after the spike. The wait before that moment
// is drawn paler: it still carried the spike and was not judged.
func (ch *Chart) addWaitPanel(doc analysis.Document, v timelineView, rows []analysis.TimelineRow) {
	pn := ch.newPanel(v, "wait (s)", 0.30)
	w, judged := chartWait(doc, rows)
	settled := math.NaN()
	if judged {
		settled = waitSettledS(doc, v)
	}
	// settled is NaN without a settled moment: then no sample is before it.
	late := func(m analysis.TimelineRow) float64 {
		if m.TS < settled {
			return math.NaN()
		}
		return w.of(m)
	}
	if !ch.addSeries(pn, v, rows, SeriesWait, w.label, solid(colWait), late) && anyKnown(rows, w.of) {
		// Known only before it settled: the legend names it all the same.
		pn.legend.Add(w.label, &series{style: solid(colWait)})
		ch.register(SeriesWait, colWait)
	}
	if finite(settled) {
		ch.addEarlyWait(pn, v, rows, w, settled)
	}
	if tau := timeoutS(doc); tau > 0 {
		ch.addLimit(pn, SeriesTimeout, "client timeout τ_out = "+shortSeconds(tau), tau,
			draw.LineStyle{Color: colTimeout, Width: 1.2, Dashes: []vg.Length{6, 3}})
	}
	if p, from := shorterPatience(doc); p > 0 {
		name := "patience " + shortSeconds(p)
		if from != "" {
			name += " (" + from + ")"
		}
		ch.addLimit(pn, SeriesPatience, name, p, draw.LineStyle{Color: colPatience, Width: 1.2, Dashes: []vg.Length{2, 2}})
	}
}

// addLimit draws a horizontal reference line with its legend entry.
func (ch *Chart) addLimit(pn *chartPanel, class, name string, y float64, style draw.LineStyle) {
	h := hline{name: name, class: class, y: y, style: style}
	pn.plot.Add(h)
	pn.legend.Add(h.name, h)
	ch.register(class, style.Color)
}

// addEarlyWait draws the judged wait before it settled, paler, joined to
// the rest at the first settled sample, and marks the settled moment
// (spike end + the signal's delay) with a labelled vertical line.
func (ch *Chart) addEarlyWait(pn *chartPanel, v timelineView, rows []analysis.TimelineRow, w waitColumn, settled float64) {
	early := &series{name: w.label, class: SeriesWait, xs: v.x, ys: make([]float64, len(rows)), style: solid(colWaitEarly)}
	joined := false
	for i, m := range rows {
		early.ys[i] = math.NaN()
		if !joined {
			early.ys[i] = ch.plotted(w.of(m))
			joined = m.TS >= settled
		}
	}
	if early.known() {
		pn.plot.Add(early)
		ch.registerColour(SeriesWait, colWaitEarly)
	}
	pn.plot.Add(vline{x: settled, label: "wait settled (+" + analysis.FormatSeconds(settled-v.spikeEnd) + ")",
		style: draw.LineStyle{Color: colSettled, Width: 1.2, Dashes: []vg.Length{4, 2, 1, 2}},
		text:  text.Style{Color: colSettled, Font: font.From(fontRegular, 8), Handler: plot.DefaultTextHandler}})
	ch.register(SeriesSettled, colSettled)
}
