package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A run recorded later in its own clock (a longer warmup) lands on the
// same place of the comparison's time axis: both are aligned at their
// spike's start.
func TestAlignedRunStartsAtTheSpike(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	a, err := alignedRun("baseline", doc, rows)
	if err != nil {
		t.Fatal(err)
	}
	later := doc
	obs := *doc.Observation
	later.Observation = &obs
	shift := 7.0
	obs.SpikeStartS = analysis.Num(*doc.Observation.SpikeStartS + shift)
	obs.SpikeEndS = analysis.Num(*doc.Observation.SpikeEndS + shift)
	moved := make([]analysis.TimelineRow, len(rows))
	for i, m := range rows {
		m.TS += shift
		moved[i] = m
	}
	b, err := alignedRun("candidate", later, moved)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.v.x {
		if math.Abs(a.v.x[i]-b.v.x[i]) > 1e-9 {
			t.Fatalf("row %d at %v s and %v s after the spike", i, a.v.x[i], b.v.x[i])
		}
	}
	if first := a.v.x[0]; first >= 0 || math.Abs(first-(rows[0].TS+a.v.width/2-*doc.Observation.SpikeStartS)) > 1e-9 {
		t.Errorf("first row at %v s after the spike", first)
	}
}

// The overlay draws both runs' rates and waits and both verdicts; the
// time axis runs from the earlier warmup's start.
func TestCompareChartDrawsBothRuns(t *testing.T) {
	base, baseRows := loadFixture(t, "recovered")
	cand, candRows := loadFixture(t, "trapped")
	ch, err := CompareChart(base, cand, baseRows, candRows)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := ch.svg()
	if err != nil {
		t.Fatal(err)
	}
	s := parseSVG(t, svg)
	for _, class := range []string{SeriesBaseOK, SeriesBaseFailed, SeriesBaseWait, SeriesCandOK, SeriesCandFailed, SeriesCandWait} {
		if s.points(class) == 0 {
			t.Errorf("series %s not drawn", class)
		}
	}
	for _, class := range []string{SeriesBaseVerdict, SeriesCandVerdict, SeriesSpikeAligned, SeriesTimeout} {
		if len(s.paths[class]) == 0 {
			t.Errorf("line %s not drawn", class)
		}
	}
	for _, want := range []string{"time since the spike started (s)", "baseline: recovered after 55.0 s", "candidate: trapped", "spike end"} {
		if !s.hasText(want) {
			t.Errorf("no %q in the chart", want)
		}
	}
	lo := math.Min(-*base.Observation.SpikeStartS, -*cand.Observation.SpikeStartS)
	if got := ch.panels[0].plot.X.Min; math.Abs(got-lo) > 1e-9 {
		t.Errorf("time axis from %v s, want %v s", got, lo)
	}
}

// A run whose spike start is unknown cannot be aligned: the page says so
// in the chart's place and still shows the comparison.
func TestCompareHTML(t *testing.T) {
	base, slower, trapped, _ := compareDocs(t)
	_, baseRows := loadFixture(t, "recovered")
	_, trappedRows := loadFixture(t, "trapped")
	var page bytes.Buffer
	c := analysis.Compare(base, trapped, analysis.DefaultCompareThresholds)
	if err := WriteCompareHTML(&page, CompareRuns{Comparison: c, Base: base, Cand: trapped, BaseRows: baseRows, CandRows: trappedRows,
		BaseName: "out/main", CandName: "out/<pr>"}); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	for _, want := range []string{"✗ regression", `class="regressed"`, "series-candidate-wait", "series-baseline-ok", "out/&lt;pr&gt;", "aligned at the spike"} {
		if !strings.Contains(h, want) {
			t.Errorf("no %q in the page", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "could not be drawn"} {
		if strings.Contains(h, bad) {
			t.Errorf("%q in the page", bad)
		}
	}

	noSpike := slower
	obs := *slower.Observation
	obs.SpikeStartS = nil
	noSpike.Observation = &obs
	page.Reset()
	c = analysis.Compare(base, noSpike, analysis.DefaultCompareThresholds)
	if err := WriteCompareHTML(&page, CompareRuns{Comparison: c, Base: base, Cand: noSpike, BaseRows: baseRows}); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, "could not be drawn: chart: the candidate&#39;s spike start is unknown") || !strings.Contains(h, "REGRESSED") {
		t.Errorf("page without the chart's note or the figures:\n%s", h)
	}
}
