package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/analysis"
)

// svgContent is what a test reads back from the chart's SVG.
type svgContent struct {
	title string
	texts []string         // every <text>, in order
	paths map[string][]int // series class → points of each of its paths
}

// parseSVG reads the chart's SVG with an XML decoder (so it must be
// well-formed XML) and collects its texts and its classed paths.
func parseSVG(t *testing.T, svg []byte) svgContent {
	t.Helper()
	out := svgContent{paths: map[string][]int{}}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var in string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			in = el.Name.Local
			if in != "path" {
				continue
			}
			var class, d string
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "class":
					class = a.Value
				case "d":
					d = a.Value
				}
			}
			if c, ok := strings.CutPrefix(class, seriesClassPrefix); ok {
				out.paths[c] = append(out.paths[c], strings.Count(d, "M")+strings.Count(d, "L"))
			}
		case xml.CharData:
			switch in {
			case "text":
				out.texts = append(out.texts, string(el))
			case "title":
				out.title += string(el)
			}
		case xml.EndElement:
			in = ""
		}
	}
}

// hasText says whether the SVG has the text, on one line or wrapped over
// consecutive lines (a legend entry wider than the legend).
func (s svgContent) hasText(want string) bool {
	for i := range s.texts {
		joined := ""
		for j := i; j < len(s.texts) && j < i+4; j++ {
			if j > i {
				joined += " "
			}
			joined += s.texts[j]
			if joined == want {
				return true
			}
		}
	}
	return false
}

// points is the points of all the series' paths but its legend sample
// (two points), which the lines of a long timeline never are.
func (s svgContent) points(class string) int {
	n := 0
	for _, p := range s.paths[class] {
		if p > 2 {
			n += p
		}
	}
	return n
}

// longest is the most points of any path of the series.
func (s svgContent) longest(class string) int {
	n := 0
	for _, p := range s.paths[class] {
		n = max(n, p)
	}
	return n
}

func renderSVG(t *testing.T, doc analysis.Document, rows []analysis.TimelineRow) ([]byte, *Chart) {
	t.Helper()
	ch, err := TimelineChart(doc, rows)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ch.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ch
}

// Every series of the real runs is in the SVG: its legend text, its
// legend sample and its line through the run's seconds. A series that
// disappears from the chart fails this test. The fixtures predate the
// failed first attempts by class: their rows get a made-up split.
func TestChartSeriesInSVG(t *testing.T) {
	lines := []struct{ class, legend string }{
		{SeriesSent, "offered first attempts"},
		{SeriesAttempts, "all attempts (first + retries)"},
		{SeriesOK, "answered ok"},
		{SeriesTimeouts, "first attempts timed out"},
		{SeriesErrors, "first attempts answered with an error (5xx/429)"},
		{SeriesConnect, "first attempts refused (connection)"},
		{SeriesIngress, "ingress at the service"},
		{SeriesWait, "queue wait at the service (wait gauge)"},
	}
	for _, tc := range []struct {
		fixture string
		verdict string // the verdict marker's label
		phases  []string
	}{
		// recovers.hcl: the service came back 55 s after the spike.
		{"recovered", "recovered after 55.0 s", []string{"warmup", "spike", "observe"}},
		// trapped.hcl: judged trapped 7 s after the spike, then on_trap drop.
		{"trapped", "trapped", []string{"warmup", "spike", "observe", "on_trap"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			doc, rows := loadFixture(t, tc.fixture)
			rows = splitFirstFailures(rows)
			svg, ch := renderSVG(t, doc, rows)
			got := parseSVG(t, svg)
			for _, l := range lines {
				if !got.hasText(l.legend) {
					t.Errorf("legend %q missing", l.legend)
				}
				if n := len(got.paths[l.class]); n < 2 {
					t.Errorf("series %s: %d paths, want its line and its legend sample", l.class, n)
				}
				if n := got.longest(l.class); n < len(rows)/2 {
					t.Errorf("series %s: longest path has %d points for %d rows", l.class, n, len(rows))
				}
			}
			if !got.hasText("client timeout τ_out = 1.0 s") || len(got.paths[SeriesTimeout]) < 2 {
				t.Errorf("the client timeout line or its legend is missing: %d paths", len(got.paths[SeriesTimeout]))
			}
			// Markers: spike start and end on both panels, the verdict on both.
			if n := len(got.paths[SeriesSpike]); n != 4 {
				t.Errorf("%d spike marker paths, want start and end on two panels", n)
			}
			if n := len(got.paths[SeriesVerdict]); n != 2 {
				t.Errorf("%d verdict marker paths, want one per panel", n)
			}
			for _, want := range append([]string{"spike start", "spike end", tc.verdict, ch.Title,
				"attempts per second", "wait (s)", "time since the run started (s)"}, tc.phases...) {
				if !got.hasText(want) {
					t.Errorf("text %q missing", want)
				}
			}
			if got.title != ch.Title || !strings.Contains(ch.Title, doc.Scenario.Name) || !strings.Contains(ch.Title, string(doc.Verdict)) {
				t.Errorf("title %q (SVG <title> %q) should name the scenario and the verdict", ch.Title, got.title)
			}
			if got.hasText("ready pods") || len(got.paths[SeriesPods]) > 0 {
				t.Error("pods drawn though the specimen does not report them")
			}
			// No patience shorter than τ_out, no wait delay recorded.
			for _, c := range []string{SeriesPatience, SeriesSettled, SeriesFirstFailed} {
				if len(got.paths[c]) > 0 {
					t.Errorf("series %s drawn though the run has none", c)
				}
			}
		})
	}
}

// What is drawn follows what the timeline knows.
func TestChartSeriesFollowTheData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*analysis.TimelineRow)
		present []string // series classes that must be drawn
		absent  []string // series classes that must not
		texts   []string // legend texts that must be there
	}{
		// No ingress query: the ingress line is left out, not drawn at zero.
		{"no ingress", func(m *analysis.TimelineRow) { m.IngressPerS = math.NaN() },
			[]string{SeriesSent, SeriesWait}, []string{SeriesIngress}, nil},
		// The judged wait (the service's gauge) missing from the rows: the
		// tracers' wait stands in, named as such.
		{"tracer wait", func(m *analysis.TimelineRow) { m.TracerWaitS, m.WaitS = m.WaitS+0.01, math.NaN() },
			[]string{SeriesWait}, nil, []string{"wait seen by tracers the service answered"}},
		// Every failed first attempt answered with an error status (a
		// proxy's 504 before the client's timeout): the errors series.
		{"errors only", func(m *analysis.TimelineRow) {
			m.FirstTimeouts, m.FirstErrors, m.FirstConnect = 0, m.FirstFailed(), 0
		},
			[]string{SeriesErrors, SeriesTimeouts, SeriesConnect}, []string{SeriesFirstFailed},
			[]string{"first attempts answered with an error (5xx/429)"}},
		// Only the errors column known: the other classes are left out.
		{"errors column only", func(m *analysis.TimelineRow) {
			m.FirstTimeouts, m.FirstErrors, m.FirstConnect = math.NaN(), m.FirstFailed(), math.NaN()
		}, []string{SeriesErrors}, []string{SeriesTimeouts, SeriesConnect, SeriesFirstFailed}, nil},
		// A timeline written before the classes were recorded (the
		// fixtures as they are): the failed first attempts as one series.
		{"no classes", func(*analysis.TimelineRow) {},
			[]string{SeriesFirstFailed}, []string{SeriesTimeouts, SeriesErrors, SeriesConnect},
			[]string{"first attempts failed (class not recorded)"}},
		// Pods reported: a third panel.
		{"pods", func(m *analysis.TimelineRow) { m.Pods = 2 + math.Floor(m.TS/30) },
			[]string{SeriesPods}, nil, []string{"ready pods", "pods"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, rows := loadFixture(t, "recovered")
			for i := range rows {
				tc.change(&rows[i])
			}
			svg, _ := renderSVG(t, doc, rows)
			got := parseSVG(t, svg)
			for _, c := range tc.present {
				if got.longest(c) < len(rows)/2 {
					t.Errorf("series %s missing or short: %v", c, got.paths[c])
				}
			}
			for _, c := range tc.absent {
				if len(got.paths[c]) > 0 {
					t.Errorf("series %s drawn without data", c)
				}
			}
			for _, s := range tc.texts {
				if !got.hasText(s) {
					t.Errorf("text %q missing", s)
				}
			}
		})
	}
}

// Gaps in the data break the line instead of joining across them.
func TestChartBreaksAtUnknownValues(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	for i := range rows {
		if i%10 == 5 {
			rows[i].IngressPerS = math.NaN()
		}
	}
	svg, _ := renderSVG(t, doc, rows)
	got := parseSVG(t, svg)
	if n := len(got.paths[SeriesIngress]); n < 8 {
		t.Errorf("ingress with a gap every 10 s drawn as %d paths, want one per stretch", n)
	}
}

// With no timeline at all (a run that crashed before its first second),
// the chart still draws the document's phases and markers.
func TestChartWithoutRows(t *testing.T) {
	doc, _ := loadFixture(t, "recovered")
	svg, _ := renderSVG(t, doc, nil)
	got := parseSVG(t, svg)
	for _, want := range []string{"spike start", "spike end", "recovered after 55.0 s", "warmup", "observe", "no timeline recorded"} {
		if !got.hasText(want) {
			t.Errorf("text %q missing", want)
		}
	}
	if len(got.paths[SeriesSent]) > 0 {
		t.Error("a rate drawn without rows")
	}
}

// Rows whose times are unknown or go backwards are refused, and WriteAll
// still writes the reports that need no chart, naming the problem.
func TestChartRefusesDisorderedRows(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	for _, tc := range []struct {
		name string
		edit func([]analysis.TimelineRow)
	}{
		{"backwards", func(r []analysis.TimelineRow) { r[10].TS = 3 }},        // a row out of order
		{"unknown", func(r []analysis.TimelineRow) { r[10].TS = math.NaN() }}, // a row without a time
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]analysis.TimelineRow(nil), rows...)
			tc.edit(bad)
			if _, err := TimelineChart(doc, bad); err == nil || !strings.Contains(err.Error(), "row 11") {
				t.Errorf("err = %v, want row 11 named", err)
			}
			dir := t.TempDir()
			err := WriteAll(dir, doc, bad)
			if err == nil || !strings.Contains(err.Error(), "row 11") {
				t.Errorf("WriteAll: err = %v", err)
			}
			for _, f := range []string{HTMLFile, MarkdownFile, JUnitFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
			if !bytes.Contains(page, []byte("The chart could not be drawn")) {
				t.Error("report.html does not say why the chart is missing")
			}
		})
	}
}

// A simulate document is charted from its own (model) timeline.
func TestChartOfAModel(t *testing.T) {
	doc := simulateDoc(t)
	svg, ch := renderSVG(t, doc, nil)
	got := parseSVG(t, svg)
	for _, c := range []string{SeriesSent, SeriesAttempts, SeriesTimeouts, SeriesErrors, SeriesIngress, SeriesWait, SeriesSpike} {
		if got.longest(c) < 2 {
			t.Errorf("series %s missing from the model's chart", c)
		}
	}
	// A model has no connections to refuse, no wait source and no delay.
	for _, c := range []string{SeriesConnect, SeriesFirstFailed, SeriesSettled} {
		if len(got.paths[c]) > 0 {
			t.Errorf("series %s drawn on the model's chart", c)
		}
	}
	if !got.hasText("queue wait in the model") {
		t.Error("the model's wait is not named as the model's")
	}
	if !strings.Contains(ch.Title, "simulate, fluid") {
		t.Errorf("title %q should say it is a model", ch.Title)
	}
}

// Same input, same bytes: SVG and PNG; the PNG is 1200 × 700 pixels.
func TestChartDeterministic(t *testing.T) {
	doc, rows := loadFixture(t, "trapped")
	a, _ := renderSVG(t, doc, rows)
	b, _ := renderSVG(t, doc, rows)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of the same run differ (SVG)")
	}
	var p1, p2 bytes.Buffer
	for _, buf := range []*bytes.Buffer{&p1, &p2} {
		ch, err := TimelineChart(doc, rows)
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.WritePNG(buf); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(p1.Bytes(), p2.Bytes()) {
		t.Error("two renderings of the same run differ (PNG)")
	}
	cfg, err := png.DecodeConfig(&p1)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 1200 || cfg.Height != 700 {
		t.Errorf("PNG is %d × %d, want 1200 × 700", cfg.Width, cfg.Height)
	}
}

// A scenario name is text in the SVG, never markup.
func TestChartEscapesText(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	doc.Scenario.Name = `<script>alert("x")</script> & co`
	svg, ch := renderSVG(t, doc, rows)
	if bytes.Contains(svg, []byte("<script")) {
		t.Error("scenario name written into the SVG unescaped")
	}
	if got := parseSVG(t, svg); got.title != ch.Title || !got.hasText(ch.Title) {
		t.Errorf("escaped title does not read back: %q", got.title)
	}
}

// When the verdict was reached, for each verdict.
func TestVerdictMoment(t *testing.T) {
	v := timelineView{width: 1, spikeStart: 20, spikeEnd: 30, xmax: 100}
	rows := []analysis.TimelineRow{{TS: 59, Phase: "observe"}, {TS: 60, Phase: "on_trap"}}
	for _, tc := range []struct {
		name  string
		doc   analysis.Document
		at    float64 // NaN: no marker
		label string
	}{
		// Recovered: the spike's end plus the recovery time.
		{"recovered", analysis.Document{Kind: "run", Verdict: analysis.VerdictRecovered, RecoveryS: analysis.Num(12.5)}, 42.5, "recovered after 12.5 s"},
		// Recovered without a recovery time: nothing to mark.
		{"recovered, no time", analysis.Document{Kind: "run", Verdict: analysis.VerdictRecovered}, math.NaN(), ""},
		// Trapped with on_trap: when the action started.
		{"trapped, on_trap", analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped,
			Observation: &analysis.Observation{EndS: 70, OnTrap: &analysis.OnTrapResult{Action: "drop", AtS: 29.5}}}, 59.5, "trapped"},
		// Metastable without on_trap: the end of the last row before on_trap.
		{"metastable", analysis.Document{Kind: "run", Verdict: analysis.VerdictMetastable,
			Observation: &analysis.Observation{EndS: 80}}, 60, "metastable"},
		// Trapped, the run ended before its last row: the run's end.
		{"trapped, end", analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped,
			Observation: &analysis.Observation{EndS: 55.5}}, 55.5, "trapped"},
		// No trigger: no moment.
		{"no trigger", analysis.Document{Kind: "run", Verdict: analysis.VerdictNoTrigger}, math.NaN(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, label := verdictMoment(tc.doc, v, rows)
			if !(at == tc.at || math.IsNaN(at) && math.IsNaN(tc.at)) || label != tc.label {
				t.Errorf("got %v %q, want %v %q", at, label, tc.at, tc.label)
			}
		})
	}
}

// The ticks lie in the range, the labelled ones evenly spaced at 1, 2 or
// 5 × 10^k, about n of them.
func TestNiceTicks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Float64Range(-1e6, 1e6).Draw(t, "lo")
		span := rapid.Float64Range(1e-3, 1e6).Draw(t, "span")
		n := rapid.IntRange(3, 16).Draw(t, "n")
		hi := lo + span
		var labelled []float64
		for _, tk := range (niceTicks{n: n}).Ticks(lo, hi) {
			if tk.Value < lo-span*1e-9 || tk.Value > hi+span*1e-9 {
				t.Fatalf("tick %v outside [%v, %v]", tk.Value, lo, hi)
			}
			if tk.Label != "" {
				labelled = append(labelled, tk.Value)
			}
		}
		if len(labelled) < max(1, n*2/5-1) || len(labelled) > n+1 {
			t.Fatalf("%d labelled ticks for n = %d over [%v, %v]", len(labelled), n, lo, hi)
		}
		if len(labelled) < 2 {
			return
		}
		// Differences of tick values carry the rounding of the values
		// themselves: a few ulps of the largest magnitude on the axis.
		slack := 4 * math.Max(math.Abs(lo), math.Abs(hi)) * 0x1p-52
		step := labelled[1] - labelled[0]
		tol := 1e-6 + slack/step
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if math.Abs(m-1) > tol*10 && math.Abs(m-2) > tol*10 && math.Abs(m-5) > tol*10 && math.Abs(m-10) > tol*10 {
			t.Fatalf("step %v is not 1, 2 or 5 × 10^k", step)
		}
		for i := 2; i < len(labelled); i++ {
			if d := labelled[i] - labelled[i-1]; math.Abs(d-step) > step*1e-6+2*slack {
				t.Fatalf("uneven steps %v and %v", step, d)
			}
		}
	})
	// A table of the labels people see.
	for _, tc := range []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 80, 16, "0 5 10 15 20 25 30 35 40 45 50 55 60 65 70 75 80"}, // a run of 80 s
		{0, 15.3, 5, "0 5 10 15"},                        // a wait panel
		{0, 1.08, 5, "0.0 0.2 0.4 0.6 0.8 1.0"},          // an empty panel
		{0, 864, 8, "0 100 200 300 400 500 600 700 800"}, // rates
		{0, 2.16, 3, "0 1 2"},                            // pods
	} {
		var got []string
		for _, tk := range (niceTicks{n: tc.n}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("ticks over [%v, %v], n = %d: %q, want %q", tc.lo, tc.hi, tc.n, s, tc.want)
		}
	}
}

// A long verdict (an inconclusive run's reason) is cut to the chart's
// width with an ellipsis instead of running off both edges; a short one
// is left whole.
func TestChartTitleFitsTheWidth(t *testing.T) {
	st := text.Style{Font: font.From(fontBold, 12), Handler: plot.DefaultTextHandler}
	long := "“x”: inconclusive: " + strings.Repeat("the observation horizon was reached while the service was still failing, ", 5)
	width := vg.Length(400)
	got := fitText(st, long, width)
	if st.Width(got) > width || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("cut to %q (%.0f pt, width %.0f)", got, st.Width(got), width)
	}
	if short := "“x”: trapped"; fitText(st, short, width) != short {
		t.Errorf("a short title was cut: %q", fitText(st, short, width))
	}
}

// Absurd values (1e308 and +Inf, from a broken or hostile Prometheus) are
// left out of the chart, and it says how many; the rest is drawn. Such a
// value stretched an axis until the PNG took forever.
func TestChartLeavesAbsurdValuesOut(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	for i := range rows {
		if i%3 == 0 {
			rows[i].IngressPerS, rows[i].WaitS = 1e308, math.Inf(1)
		}
	}
	svg, ch := renderSVG(t, doc, rows)
	if ch.leftOut == 0 {
		t.Fatal("no value left out")
	}
	if got := parseSVG(t, svg); !got.hasText(fmt.Sprintf("%d values left out: infinite or beyond 1e+09", ch.leftOut)) {
		t.Errorf("the chart does not say what it left out")
	}
	for _, p := range ch.panels {
		if !finite(p.plot.Y.Max) || p.plot.Y.Max > maxPlotted*1.1 {
			t.Errorf("a y axis reaches %g", p.plot.Y.Max)
		}
	}
	var png bytes.Buffer
	if err := ch.WritePNG(&png); err != nil || png.Len() == 0 {
		t.Errorf("png: %v, %d bytes", err, png.Len())
	}
}

// The envelope of a dense line keeps, within each point of width, its
// first, lowest, highest and last points in order: the peaks stay.
func TestEnvelopeKeepsPeaks(t *testing.T) {
	var l []vg.Point
	for i := range 1000 {
		y := vg.Length(i % 10)
		if i == 517 {
			y = 100 // a one-sample spike
		}
		l = append(l, vg.Point{X: vg.Length(i) / 100, Y: y})
	}
	got := envelope(l)
	if len(got) > 4*10+4 || len(got) < 10 {
		t.Errorf("%d points kept of %d", len(got), len(l))
	}
	peak := false
	for i, p := range got {
		peak = peak || p.Y == 100
		if i > 0 && p.X < got[i-1].X {
			t.Fatalf("out of order at %d", i)
		}
	}
	if !peak || got[0] != l[0] || got[len(got)-1] != l[len(l)-1] {
		t.Errorf("peak kept %v, ends %v %v", peak, got[0], got[len(got)-1])
	}
}
