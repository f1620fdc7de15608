package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"

	"github.com/trigger-test/trigger/analysis"
)

// CompareHTMLFile is the comparison page a run with gate.baseline writes
// into its folder.
const CompareHTMLFile = "compare.html"

//go:embed compare.html.tmpl
var compareHTMLSource string

//go:embed style.html.tmpl
var styleSource string

// comparePage is the comparison page's template, parsed once.
var comparePage = template.Must(template.Must(template.New("compare").Parse(compareHTMLSource)).Parse(styleSource))

// CompareRuns is what the comparison page shows: the comparison, both
// runs' documents and timelines (nil rows when a run has no
// timeline.csv), and how the runs were named on the command line.
type CompareRuns struct {
	Comparison         analysis.Comparison
	Base, Cand         analysis.Document
	BaseRows, CandRows []analysis.TimelineRow
	BaseName, CandName string
}

// WriteCompareHTML writes the comparison as one self-contained page (no
// network, no script): the headline, both verdicts, the table of figures
// with their intervals (regressed rows marked) and the chart of both
// timelines aligned at the spike's start (CompareChart). A chart that
// cannot be drawn leaves a note in its place.
func WriteCompareHTML(w io.Writer, r CompareRuns) error {
	c := r.Comparison
	data := struct {
		Title, Name, Base, Cand, Headline string
		Comparable, Regressed             bool
		BaseVerdict, CandVerdict          string
		BaseHeadline, CandHeadline        string
		Header                            []string
		Rows                              []compareHTMLRow
		MaxRecovery, MaxAmplification     string
		SVG                               template.HTML
		ChartError                        string
	}{
		Title: "trigger compare “" + scenarioName(r.Cand) + "”: " + CompareHeadline(c), Name: scenarioName(r.Cand),
		Base: r.BaseName, Cand: r.CandName, Headline: CompareHeadline(c),
		Comparable: c.Comparable, Regressed: c.Regressed,
		BaseVerdict: verdictClass(r.Base.Verdict), CandVerdict: verdictClass(r.Cand.Verdict),
		BaseHeadline: verdictHeadline(r.Base), CandHeadline: verdictHeadline(r.Cand),
		Header:      []string{"figure", "baseline", "candidate", "difference", ""},
		MaxRecovery: relText(analysis.Num(c.Thresholds.MaxRecoveryRegression)), MaxAmplification: relText(analysis.Num(c.Thresholds.MaxAmplificationRegression)),
	}
	for _, cells := range compareRows(c) {
		data.Rows = append(data.Rows, compareHTMLRow{Cells: cells, Regressed: cells[len(cells)-1] == "REGRESSED"})
	}
	ch, err := CompareChart(r.Base, r.Cand, r.BaseRows, r.CandRows)
	var svg []byte
	if err == nil {
		svg, err = ch.svg()
	}
	if err != nil {
		data.ChartError = err.Error()
	} else {
		data.SVG = template.HTML(inlineSVG(svg)) // trusted: gonum escapes the SVG's text, decorate escapes the title
	}
	var buf bytes.Buffer
	if err := comparePage.Execute(&buf, data); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

type compareHTMLRow struct {
	Cells     []string
	Regressed bool
}

// verdictClass is the page's CSS class suffix for a verdict.
func verdictClass(v analysis.Verdict) string {
	if v == "" {
		return "none"
	}
	return string(v)
}

// ReadRun reads a recorded run for a comparison: path is its folder or
// its result.json; the rows are the folder's timeline.csv (nil when it has
// none; its whole rows when a crash cut it short, which a comparison can
// live with). Only the result document is required.
// result.json is read and checked first: a folder whose result.json is
// refused is refused before its timeline is opened. The timeline is
// streamed, at most MaxTimelineRows of its rows kept.
func ReadRun(path string) (analysis.Document, []analysis.TimelineRow, error) {
	doc, dir, err := ReadRunResult(path)
	if err != nil {
		return analysis.Document{}, nil, err
	}
	rows, _, err := ReadDirTimeline(dir)
	if err != nil {
		return doc, nil, nil // the chart goes without this run's timeline
	}
	return doc, rows, nil
}

// ReadRunResult reads a recorded run's result document alone (path: its
// folder or its result.json) and returns the run's folder; the timeline is
// never opened (`trigger simulate --from` needs the document only).
func ReadRunResult(path string) (doc analysis.Document, dir string, err error) {
	dir = path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, ResultFile)
	} else {
		dir = filepath.Dir(path)
	}
	doc, err = ReadResult(path)
	if err != nil {
		return analysis.Document{}, dir, err
	}
	return doc, dir, nil
}
