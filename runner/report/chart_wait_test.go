package report

import (
	"bytes"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/trigger-test/trigger/analysis"
)

// The wait the chart draws is the one the verdict judged; without a
// source (a model, an older run) the first column with data.
func TestChartWaitColumn(t *testing.T) {
	row := func(wait, tracer, backlog float64) []analysis.TimelineRow {
		m := analysis.UnknownRow()
		m.WaitS, m.TracerWaitS, m.BacklogWaitS = wait, tracer, backlog
		return []analysis.TimelineRow{m}
	}
	nan := math.NaN()
	run := func(source analysis.WaitSource) analysis.Document {
		return analysis.Document{Kind: "run", Observation: &analysis.Observation{WaitSource: source}}
	}
	for _, tc := range []struct {
		name   string
		doc    analysis.Document
		rows   []analysis.TimelineRow
		label  string
		judged bool
	}{
		{"service", run("service"), row(1, 2, 3), "queue wait at the service (wait gauge)", true},
		{"tracers", run("tracers"), row(1, 2, 3), "wait seen by tracers the service answered", true},
		{"ingress-served", run("ingress-served"), row(1, 2, 3), "backlog from ingress − served (lags by its rate windows)", true},
		// The judged column is not in the rows (an older timeline.csv):
		// the best column that is, not marked as judged.
		{"judged column missing", run("ingress-served"), row(1, 2, nan), "queue wait at the service (wait gauge)", false},
		// An older run without a source: the gauge, else the tracers, else the backlog.
		{"no source", run(""), row(nan, 2, 3), "wait seen by tracers the service answered", false},
		{"no source, backlog only", run(""), row(nan, nan, 3), "backlog from ingress − served (lags by its rate windows)", false},
		// A model's own wait.
		{"model", analysis.Document{Kind: "simulate"}, row(1, nan, nan), "queue wait in the model", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, judged := chartWait(tc.doc, tc.rows)
			if w.label != tc.label || judged != tc.judged {
				t.Errorf("got %q judged %v, want %q judged %v", w.label, judged, tc.label, tc.judged)
			}
		})
	}
}

// A run judged on ingress − served draws the backlog (BacklogWaitS, not
// the gauge the rows also have), paler before it settled, and marks when
// it settled; the patience of the proxy in front of the service, shorter
// than τ_out, is drawn beside τ_out.
func TestChartIngressServedWait(t *testing.T) {
	doc, rows := ingressServedDoc(t)
	svg, ch := renderSVG(t, doc, rows)
	got := parseSVG(t, svg)
	backlog := 0 // rows with the backlog known: the rows from the spike's start on
	for _, m := range rows {
		if finite(m.BacklogWaitS) {
			backlog++
		}
	}
	// The pale and the full part share one sample, where they meet.
	if n := got.points(SeriesWait); n != backlog+1 {
		t.Errorf("the wait's lines have %d points, want %d: the backlog's %d known seconds, one shared (all %d rows: the gauge)",
			n, backlog+1, backlog, len(rows))
	}
	for _, col := range []color.RGBA{colWait, colWaitEarly} {
		if !bytes.Contains(svg, []byte("stroke:"+svgColour(col))) {
			t.Errorf("no wait line in %s", svgColour(col))
		}
	}
	if n := len(got.paths[SeriesSettled]); n != 1 {
		t.Errorf("%d settled marker paths, want one on the wait panel", n)
	}
	if n := len(got.paths[SeriesPatience]); n != 2 {
		t.Errorf("%d patience paths, want its line and its legend sample", n)
	}
	for _, want := range []string{"backlog from ingress − served (lags by its rate windows)", "wait settled (+3.0 s)",
		`patience 300 ms (layer "proxy"'s per-try timeout)`, "client timeout τ_out = 1.0 s"} {
		if !got.hasText(want) {
			t.Errorf("text %q missing", want)
		}
	}
	for _, c := range []string{SeriesWait, SeriesSettled, SeriesPatience, SeriesTimeout} {
		if !slices.Contains(ch.Series, c) {
			t.Errorf("Chart.Series %v lacks %s", ch.Series, c)
		}
	}
}

// The patience line: only when shorter than τ_out; the run's patience
// before the scenario's.
func TestChartPatience(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*analysis.Document)
		want string // "" : no patience line
	}{
		{"none", func(*analysis.Document) {}, ""},
		{"equal to τ_out", func(d *analysis.Document) {
			d.Scenario.PatienceS, d.Scenario.PatienceFrom = 1, "the client timeout τ_out"
		}, ""},
		{"scenario's", func(d *analysis.Document) {
			d.Scenario.PatienceS, d.Scenario.PatienceFrom = 0.5, `layer "mesh"'s per-try timeout`
		}, `patience 500 ms (layer "mesh"'s per-try timeout)`},
		{"run's first", func(d *analysis.Document) {
			d.Scenario.PatienceS, d.Scenario.PatienceFrom = 0.5, `layer "mesh"'s per-try timeout`
			d.Observation.PatienceS, d.Observation.PatienceFrom = analysis.Num(0.25), "measured: 504s at 250 ms"
		}, "patience 250 ms (measured: 504s at 250 ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, rows := loadFixture(t, "recovered")
			tc.edit(&doc)
			svg, _ := renderSVG(t, doc, rows)
			got := parseSVG(t, svg)
			if n := len(got.paths[SeriesPatience]); (n > 0) != (tc.want != "") {
				t.Errorf("%d patience paths, want a line: %v", n, tc.want != "")
			}
			if tc.want != "" && !got.hasText(tc.want) {
				t.Errorf("text %q missing", tc.want)
			}
		})
	}
}

// Every series has a colour of its own, and none is black (the axes'):
// the SVG's paths are told apart by their stroke colour.
func TestChartColoursDistinct(t *testing.T) {
	cols := map[string]color.RGBA{
		SeriesSent: colSent, SeriesAttempts: colAttempts, SeriesOK: colOK, SeriesTimeouts: colTimeouts,
		SeriesErrors: colErrors, SeriesConnect: colConnect, SeriesFirstFailed: colFirstFailed, SeriesIngress: colIngress,
		SeriesWait: colWait, "wait (before it settled)": colWaitEarly, SeriesTimeout: colTimeout, SeriesPatience: colPatience,
		SeriesSettled: colSettled, SeriesPods: colPods, SeriesSpike: colSpike, "grid": colGrid, "back after on_trap": colBack,
	}
	for v, c := range verdictColour {
		cols["verdict "+string(v)] = c
	}
	seen := map[string]string{}
	for name, c := range cols {
		hex := svgColour(c)
		if other, ok := seen[hex]; ok {
			t.Errorf("%s and %s share the colour %s", name, other, hex)
		}
		if hex == "#000000" {
			t.Errorf("%s is black, the axes' colour", name)
		}
		seen[hex] = name
	}
}

// Legend text wider than the legend wraps at spaces; a word wider than
// the legend keeps a line of its own.
func TestWrapText(t *testing.T) {
	sty := legendStyle()
	for _, tc := range []struct {
		text  string
		width float64 // points
		want  []string
	}{
		{"answered ok", 140, []string{"answered ok"}},
		{"first attempts answered with an error (5xx/429)", 140, []string{"first attempts answered with an", "error (5xx/429)"}},
		{"patience 300 ms (layer \"a-very-long-layer-name-indeed\"'s per-try timeout)", 80,
			[]string{"patience 300 ms", "(layer", "\"a-very-long-layer-name-indeed\"'s", "per-try timeout)"}},
		{"", 140, []string{""}},
	} {
		got := wrapText(sty, tc.text, vg.Length(tc.width))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrap %q at %v: %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

// A judged wait that had not settled by the run's end is all drawn pale,
// still named in the legend; the settled moment lies beyond the chart.
func TestChartWaitNeverSettled(t *testing.T) {
	doc, rows := ingressServedDoc(t)
	doc.Observation.WaitDelayS = analysis.Num(200)
	svg, _ := renderSVG(t, doc, rows)
	got := parseSVG(t, svg)
	if !got.hasText("backlog from ingress − served (lags by its rate windows)") {
		t.Error("the judged wait is not named")
	}
	for _, col := range []color.RGBA{colWait, colWaitEarly} { // the legend's sample, the line
		if !bytes.Contains(svg, []byte("stroke:"+svgColour(col))) {
			t.Errorf("nothing drawn in %s", svgColour(col))
		}
	}
	if n := got.longest(SeriesWait); n < 50 {
		t.Errorf("the pale wait has %d points", n)
	}
	if n := len(got.paths[SeriesSettled]); n != 0 {
		t.Errorf("%d settled marker paths beyond the chart's end", n)
	}
}
