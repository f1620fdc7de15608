package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	xfnt "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/trigger-test/trigger/analysis"
)

// Chart geometry: 900 × 525 points, which is 1200 × 700 pixels at ChartDPI.
const (
	// ChartWidth and ChartHeight are the chart's size in points (1/72 inch).
	ChartWidth  = vg.Length(900)
	ChartHeight = vg.Length(525)
	// ChartDPI is the resolution of the PNG, dots per inch: 96 makes it
	// 1200 × 700 pixels.
	ChartDPI = 96
)

// Classes of the chart's series. In the SVG every path of a series (its
// line and its legend sample) carries the class "series-" + one of these,
// so a browser check or a test can find each series by name.
const (
	SeriesSent     = "sent"     // offered first attempts per second
	SeriesAttempts = "attempts" // all attempts (first + retries) per second
	SeriesOK       = "ok"       // attempts answered ok per second
	SeriesTimeouts = "timeouts" // first attempts that timed out at the client, per second
	SeriesErrors   = "errors"   // first attempts answered with an error status (5xx, 503, 429, 4xx) but 401 and 403, per second
	SeriesAuth     = "auth"     // first attempts answered 401 or 403 (credentials refused), per second; drawn only when there were any
	SeriesConnect  = "connect"  // first attempts whose connection was refused or reset, per second
	// SeriesFirstFailed is first attempts that failed per second, drawn
	// only for a timeline that does not split them by class (one written
	// before the first_timeouts, first_errors and first_connect columns).
	SeriesFirstFailed = "first-failed"
	SeriesIngress     = "ingress"  // attempts arriving at the service per second
	SeriesWait        = "wait"     // the queue wait the verdict judged, seconds
	SeriesTimeout     = "timeout"  // the client timeout τ_out, seconds
	SeriesPatience    = "patience" // the shortest patience in front of the service when below τ_out, seconds
	SeriesSettled     = "settled"  // when the judged wait settled after the spike (spike end + its delay, seconds)
	SeriesPods        = "pods"     // ready replicas
	SeriesVerdict     = "verdict"  // the verdict's vertical marker
	SeriesSpike       = "spike"    // the spike's start and end markers
)

// seriesClassPrefix starts every series class in the SVG.
const seriesClassPrefix = "series-"

// Colours: Okabe–Ito for the rates (distinguishable with colour-blindness;
// all seven of its colours but black, which the axes use), Paul Tol's for
// the rest, each used by one series only, so the SVG's paths can be told
// apart by colour.
var (
	colSent        = rgb(0x00, 0x72, 0xB2) // Okabe–Ito blue
	colAttempts    = rgb(0xE6, 0x9F, 0x00) // Okabe–Ito orange
	colOK          = rgb(0x00, 0x9E, 0x73) // Okabe–Ito bluish green
	colTimeouts    = rgb(0xD5, 0x5E, 0x00) // Okabe–Ito vermillion
	colErrors      = rgb(0xCC, 0x79, 0xA7) // Okabe–Ito reddish purple
	colConnect     = rgb(0xF0, 0xE4, 0x42) // Okabe–Ito yellow, drawn wider: it is pale on white
	colAuth        = rgb(0x11, 0x77, 0x33) // Tol green
	colIngress     = rgb(0x56, 0xB4, 0xE9) // Okabe–Ito sky blue
	colFirstFailed = rgb(0xCC, 0x66, 0x77) // Tol rose
	colWait        = rgb(0x33, 0x22, 0x88) // Tol indigo
	colWaitEarly   = rgb(0xA3, 0x9C, 0xC9) // colWait paled: the wait before it settled
	colTimeout     = rgb(0x88, 0x22, 0x55) // Tol wine
	colPatience    = rgb(0x99, 0x99, 0x33) // Tol olive
	colSettled     = rgb(0x44, 0xAA, 0x99) // Tol teal
	colPods        = rgb(0x8C, 0x51, 0x0A)
	colSpike       = rgb(0x55, 0x55, 0x55)
	colGrid        = rgb(0xE4, 0xE4, 0xE4)
	colBack        = rgb(0x2E, 0x7D, 0x32) // the service back after on_trap

	verdictColour = map[analysis.Verdict]color.RGBA{
		analysis.VerdictRecovered:    rgb(0x1A, 0x7F, 0x37),
		analysis.VerdictMetastable:   rgb(0xB0, 0x6D, 0x00),
		analysis.VerdictTrapped:      rgb(0xCF, 0x22, 0x2E),
		analysis.VerdictNoTrigger:    rgb(0x6E, 0x77, 0x81),
		analysis.VerdictInconclusive: rgb(0x7D, 0x6F, 0x8A),
	}

	// phaseFill shades the phases, light enough for the lines to read over.
	phaseFill = map[analysis.Phase]color.RGBA{
		analysis.PhaseWarmup:  rgb(0xF2, 0xF2, 0xF2),
		analysis.PhaseSpike:   rgb(0xFD, 0xE3, 0xCF),
		analysis.PhaseObserve: rgb(0xE6, 0xF0, 0xFA),
		analysis.PhaseOnTrap:  rgb(0xEE, 0xE3, 0xF6),
	}
)

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

// Fonts: Liberation Sans, bundled with gonum/plot, so the PNG is the same
// on every machine; the SVG names it with metric-compatible fallbacks.
var (
	fontRegular = font.Font{Typeface: "Liberation", Variant: "Sans"}
	fontBold    = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfnt.WeightBold}
)

// Chart is the timeline chart of one run: rates per second on top, with
// the failed first attempts by class; below them the wait the verdict
// judged (named by its source, paler before it settled after the spike,
// that moment marked) against the client timeout τ_out and a shorter
// patience; ready pods at the bottom when they are known; the phases
// shaded across all panels, the spike's start and end and the verdict
// marked. WriteSVG and WritePNG draw
// the same chart; both are deterministic (same input, same bytes).
type Chart struct {
	// Title names the scenario and the verdict.
	Title string
	// Series lists the class (Series* constants) of every series drawn.
	Series []string

	panels  []chartPanel
	classes map[string]string // "#RRGGBB" stroke colour → series class
	// leftOut counts the values not drawn because they were infinite or
	// beyond maxPlotted (plotted).
	leftOut int
}

// maxPlotted is the largest magnitude a value may have to be drawn: a
// rate, a wait or a pod count beyond it is no measurement (a broken or
// hostile metrics answer such as 1e308), and an axis stretched to it
// would take the plotting library minutes or forever.
const maxPlotted = 1e9

// plotted is v when it can be drawn; NaN (a gap in its line, counted in
// leftOut) when it is infinite or beyond maxPlotted.
func (ch *Chart) plotted(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	if math.IsInf(v, 0) || math.Abs(v) > maxPlotted {
		ch.leftOut++
		return math.NaN()
	}
	return v
}

// chartPanel is one plot of the chart with its legend and its share of the
// height.
type chartPanel struct {
	plot   *plot.Plot
	legend *chartLegend
	weight float64
}

// TimelineChart builds the chart of a run from its result document and
// its timeline (timeline.csv). Without rows a simulate document's own
// timeline is charted, the same rows; with neither, the chart shows the phases
// and markers the document knows over empty panels. It fails when the
// rows' times are unknown or go backwards (a corrupted timeline): the
// lines would be drawn back and forth across the chart.
func TimelineChart(doc analysis.Document, rows []analysis.TimelineRow) (*Chart, error) {
	if len(rows) == 0 && len(doc.Timeline) > 0 {
		rows = doc.Timeline
	}
	if err := checkRows(rows); err != nil {
		return nil, err
	}
	v := newTimelineView(doc, rows)
	ch := &Chart{Title: chartTitle(doc), classes: map[string]string{}}

	rates := ch.newPanel(v, "attempts per second", 0.56)
	ch.addSeries(rates, v, rows, SeriesSent, "offered first attempts", solid(colSent), func(m analysis.TimelineRow) float64 { return m.Sent })
	ch.addSeries(rates, v, rows, SeriesAttempts, "all attempts (first + retries)", solid(colAttempts), func(m analysis.TimelineRow) float64 { return m.Attempts() })
	ch.addSeries(rates, v, rows, SeriesOK, "answered ok", solid(colOK), func(m analysis.TimelineRow) float64 { return m.OK })
	ch.addFirstFailures(rates, v, rows)
	ch.addSeries(rates, v, rows, SeriesIngress, "ingress at the service", dashed(colIngress), func(m analysis.TimelineRow) float64 { return m.IngressPerS })
	for _, b := range v.bands {
		if b.name != "" {
			rates.legend.Add(string(b.name), b)
		}
	}

	ch.addWaitPanel(doc, v, rows)

	if len(rows) == 0 {
		rates.plot.Add(note{"no timeline recorded"})
	}

	podsOf := func(m analysis.TimelineRow) float64 { return m.Pods }
	if anyKnown(rows, podsOf) {
		pods := ch.newPanel(v, "pods", 0.14)
		ch.addSeries(pods, v, rows, SeriesPods, "ready pods", solid(colPods), podsOf)
	}

	ch.addMarkers(doc, v, rows)
	ch.finishAxes(v)
	if ch.leftOut > 0 {
		ch.panels[0].plot.Add(corner{fmt.Sprintf("%d values left out: infinite or beyond %.0e", ch.leftOut, maxPlotted)})
	}
	return ch, nil
}

// checkRows fails when the rows' times are unknown or go backwards.
func checkRows(rows []analysis.TimelineRow) error {
	for i, m := range rows {
		if !finite(m.TS) || m.TS < 0 || (i > 0 && m.TS < rows[i-1].TS) {
			return fmt.Errorf("chart: timeline row %d: time %v s is unknown or out of order", i+1, m.TS)
		}
	}
	return nil
}

// addFirstFailures draws the first attempts that failed, one series per
// class: timed out at the client, answered with an error status (a
// proxy's 504 before the client's timeout, a 503 or 429), connection
// refused or reset, and, when there were any, answered 401 or 403
// (credentials refused, kept apart from the service's errors). A timeline
// without the classes (written before they were recorded) draws the
// failed first attempts as one series.
func (ch *Chart) addFirstFailures(pn *chartPanel, v timelineView, rows []analysis.TimelineRow) {
	classes := []struct {
		class, name string
		style       draw.LineStyle
		of          func(analysis.TimelineRow) float64
	}{
		{SeriesTimeouts, "first attempts timed out", solid(colTimeouts), func(m analysis.TimelineRow) float64 { return m.FirstTimeouts }},
		{SeriesErrors, "first attempts answered with an error (5xx/429)", solid(colErrors), func(m analysis.TimelineRow) float64 { return m.FirstErrors - analysis.ZeroIfUnknown(m.FirstAuth) }},
		{SeriesConnect, "first attempts refused (connection)", wide(colConnect), func(m analysis.TimelineRow) float64 { return m.FirstConnect }},
	}
	if slices.ContainsFunc(rows, func(m analysis.TimelineRow) bool { return m.FirstAuth > 0 }) {
		classes = append(classes, struct {
			class, name string
			style       draw.LineStyle
			of          func(analysis.TimelineRow) float64
		}{SeriesAuth, "first attempts refused credentials (401/403)", solid(colAuth), func(m analysis.TimelineRow) float64 { return m.FirstAuth }})
	}
	drawn := false
	for _, c := range classes {
		drawn = ch.addSeries(pn, v, rows, c.class, c.name, c.style, c.of) || drawn
	}
	if !drawn {
		ch.addSeries(pn, v, rows, SeriesFirstFailed, "first attempts failed (class not recorded)", solid(colFirstFailed),
			func(m analysis.TimelineRow) float64 { return m.FirstFailed() })
	}
}

// newPanel adds a panel with the phases shaded and a light grid.
func (ch *Chart) newPanel(v timelineView, ylabel string, weight float64) *chartPanel {
	p := plot.New()
	p.BackgroundColor = color.White
	p.X.Padding, p.Y.Padding = 0, 0
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(fontRegular, 10)
		a.Tick.Label.Font = font.From(fontRegular, 9)
	}
	for _, b := range v.bands {
		p.Add(b)
	}
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: colGrid, Width: 0.5}
	g.Horizontal = g.Vertical
	p.Add(g)
	ch.panels = append(ch.panels, chartPanel{plot: p, legend: &chartLegend{}, weight: weight})
	return &ch.panels[len(ch.panels)-1]
}

// addSeries draws one column of the timeline when at least one of its
// values is known, and reports whether it did.
func (ch *Chart) addSeries(pn *chartPanel, v timelineView, rows []analysis.TimelineRow, class, name string, style draw.LineStyle, of func(analysis.TimelineRow) float64) bool {
	s := &series{name: name, class: class, xs: v.x, ys: make([]float64, len(rows)), style: style}
	for i, m := range rows {
		s.ys[i] = ch.plotted(of(m))
	}
	if !s.known() {
		return false
	}
	pn.plot.Add(s)
	pn.legend.Add(name, s)
	ch.register(class, style.Color)
	return true
}

// solid, dashed and wide are the line styles of the series: 1.5 points
// wide, dashed (5 on, 2.5 off) for a rate the service reports, 2 points
// wide for a pale colour.
func solid(col color.RGBA) draw.LineStyle { return draw.LineStyle{Color: col, Width: 1.5} }

func dashed(col color.RGBA) draw.LineStyle {
	return draw.LineStyle{Color: col, Width: 1.5, Dashes: []vg.Length{5, 2.5}}
}

func wide(col color.RGBA) draw.LineStyle { return draw.LineStyle{Color: col, Width: 2} }

// register remembers which stroke colour belongs to which series.
func (ch *Chart) register(class string, col color.Color) {
	ch.registerColour(class, col)
	ch.Series = append(ch.Series, class)
}

// registerColour maps one more stroke colour to a series already
// registered (a part of it drawn in another shade).
func (ch *Chart) registerColour(class string, col color.Color) {
	r, g, b, _ := col.RGBA()
	ch.classes[svgColour(color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255})] = class
}

// addMarkers draws the spike's start and end and the verdict on every panel.
func (ch *Chart) addMarkers(doc analysis.Document, v timelineView, rows []analysis.TimelineRow) {
	label := text.Style{Color: colSpike, Font: font.From(fontRegular, 8), Handler: plot.DefaultTextHandler}
	spike := draw.LineStyle{Color: colSpike, Width: 1, Dashes: []vg.Length{3, 2}}
	var marks []vline
	start, end, startLabel, endLabel := v.spikeStart, v.spikeEnd, "spike start", "spike end"
	if obs := doc.Observation; obs != nil && obs.Fault != nil {
		// A fault: when its start ended and its stop began, as the run saw.
		start, end = analysis.Value(obs.Fault.StartedS), analysis.Value(obs.Fault.StoppedS)
		startLabel, endLabel = "fault "+obs.Fault.Name, "fault stopped"
	} else if doc.Scenario.Fault != nil {
		startLabel, endLabel = "fault "+doc.Scenario.Fault.Name, "fault ends"
	}
	if finite(start) {
		marks = append(marks, vline{x: start, label: startLabel, style: spike, text: label})
	}
	if finite(end) {
		marks = append(marks, vline{x: end, label: endLabel, style: spike, text: label})
	}
	if len(marks) > 0 {
		ch.register(SeriesSpike, colSpike)
	}
	if at, what := verdictMoment(doc, v, rows); finite(at) {
		col := verdictColour[doc.Verdict]
		marks = append(marks, vline{x: at, label: what, style: draw.LineStyle{Color: col, Width: 2},
			text: text.Style{Color: col, Font: font.From(fontBold, 9), Handler: plot.DefaultTextHandler}})
		ch.register(SeriesVerdict, col)
	}
	if ot := obsOnTrap(doc); ot != nil && ot.RecoveryS != nil && finite(v.spikeEnd) {
		marks = append(marks, vline{x: v.spikeEnd + ot.AtS + *ot.RecoveryS, label: "back after on_trap " + ot.Action,
			style: draw.LineStyle{Color: colBack, Width: 1.2, Dashes: []vg.Length{2, 2}},
			text:  text.Style{Color: colBack, Font: font.From(fontRegular, 8), Handler: plot.DefaultTextHandler}})
	}
	for i := range ch.panels {
		for _, m := range marks {
			if i > 0 {
				m.label = "" // labels on the top panel only
			}
			ch.panels[i].plot.Add(m)
		}
	}
}

// finishAxes gives every panel the same time axis, v.xmin to v.xmax
// (labelled on the bottom panel only, v.xlabel or the time since the run
// started), and a y axis from zero with a little headroom.
func (ch *Chart) finishAxes(v timelineView) {
	for i := range ch.panels {
		p := ch.panels[i].plot
		p.X.Min, p.X.Max = v.xmin, v.xmax
		p.X.Tick.Marker = niceTicks{n: 16}
		p.Y.Tick.Marker = niceTicks{n: 5}
		if i == 0 {
			p.Y.Tick.Marker = niceTicks{n: 8} // the tall rates panel
		}
		if i == len(ch.panels)-1 && ch.panels[i].weight < 0.2 {
			p.Y.Tick.Marker = niceTicks{n: 3} // the small pods panel
		}
		if i < len(ch.panels)-1 {
			p.X.Tick.Marker = blankTicks{p.X.Tick.Marker}
		} else {
			p.X.Label.Text = v.xlabel
			if p.X.Label.Text == "" {
				p.X.Label.Text = "time since the run started (s)"
			}
		}
		p.Y.Min = 0
		if !finite(p.Y.Max) || p.Y.Max <= 0 {
			p.Y.Max = 1
		}
		p.Y.Max *= 1.08
	}
}

// chartTitle names the scenario, the verdict and the gate.
func chartTitle(doc analysis.Document) string {
	var b strings.Builder
	name := doc.Scenario.Name
	if name == "" {
		name = "unnamed scenario"
	}
	b.WriteString("“" + name + "”")
	if doc.Kind != "" && doc.Kind != "run" {
		fmt.Fprintf(&b, " (%s", doc.Kind)
		if doc.Model != "" {
			b.WriteString(", " + doc.Model)
		}
		b.WriteString(")")
	}
	b.WriteString(": " + verdictHeadline(doc))
	if len(doc.Gate.Criteria) > 0 {
		if doc.Gate.Passed {
			b.WriteString(", gate passed")
		} else {
			b.WriteString(", gate failed")
		}
	}
	if doc.Observation != nil && doc.Observation.Interrupted {
		b.WriteString(" (interrupted)")
	}
	return b.String()
}
