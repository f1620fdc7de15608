package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/trigger-test/trigger/analysis"
)

// HTMLFile is the report a person opens first, in a run's folder.
const HTMLFile = "report.html"

//go:embed report.html.tmpl
var htmlSource string

// htmlPage is the template, parsed once.
var htmlPage = template.Must(template.Must(template.New("report").Parse(htmlSource)).Parse(styleSource))

// WriteHTML writes report.html: one self-contained page (no network: the
// chart is inline SVG, the CSS inline, no script, no external font) with
// the verdict and recovery time against the prediction, the chart, the
// wait signal the verdict judged (its source, delay and the Prometheus
// signals' delays), the gate with each criterion, the findings, the
// predicted-against-measured table with the measured values' 95 %
// intervals, the amplification by layer and the hidden factor, the
// trigger check, the first attempts' latency by phase (or that a fleet's
// run did not measure it) and the files of the run. Text from the document is
// escaped by html/template. A chart that cannot be drawn leaves a note in
// its place.
func WriteHTML(w io.Writer, doc analysis.Document, rows []analysis.TimelineRow) error {
	var svg []byte
	ch, err := TimelineChart(doc, rows)
	if err == nil {
		svg, err = ch.svg()
	}
	return writeHTML(w, doc, svg, err, "")
}

// writeHTML renders the page around an already rendered chart (nil with
// chartErr when it failed); dir, when set, is named as the run's folder.
func writeHTML(w io.Writer, doc analysis.Document, svg []byte, chartErr error, dir string) error {
	data := newHTMLData(doc, dir)
	if chartErr != nil {
		data.ChartError = chartErr.Error()
	} else {
		data.SVG = template.HTML(inlineSVG(svg)) // trusted: gonum escapes the SVG's text, decorate escapes the title
	}
	var buf bytes.Buffer
	if err := htmlPage.Execute(&buf, data); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

// htmlData is what the template shows, already formatted.
type htmlData struct {
	Title, Kind, Name, Description, File, Dir string
	Verdict, Predicted, Headline, Reason      string
	GatePassed, GateEvaluated                 bool
	Notices                                   []string
	// RunFacts place the run: when it started, its target, the trigger
	// that ran it.
	RunFacts        []fact
	SVG             template.HTML
	ChartError      string
	Summary         []figure
	Criteria        []analysis.GateCriterion
	Estimates       []estimateRow
	WaitFacts       []fact
	Signals         []signalRow
	Findings        []string
	Recommendations []string
	ModelFacts      []string
	Layers          []layerRow
	Amplification   []figure
	Trigger         []figure
	Totals          []figure
	// Latency is the first attempts' latency by phase; nil without one.
	Latency *latencyTable
	// RequestHeader and Requests are the table of a mix's requests
	// (requestTable); nil for one request.
	RequestHeader []string
	Requests      [][]string
	Files         []htmlFile
}

type htmlFile struct{ Name, What string }

func newHTMLData(doc analysis.Document, dir string) htmlData {
	obs := doc.Observation
	figs := newFigures(doc)
	d := htmlData{
		Title:       kindTitle(doc) + " “" + scenarioName(doc) + "”: " + verdictHeadline(doc),
		Kind:        kindTitle(doc),
		Name:        scenarioName(doc),
		Description: doc.Scenario.Description,
		File:        doc.Scenario.File,
		Dir:         dir,
		Verdict:     string(doc.Verdict),
		Predicted:   string(doc.Prediction.Verdict),
		Headline:    verdictHeadline(doc),
		GatePassed:  doc.Gate.Passed && len(doc.Gate.Criteria) > 0,

		GateEvaluated:   len(doc.Gate.Criteria) > 0,
		Notices:         notices(doc),
		RunFacts:        runFacts(doc),
		Criteria:        doc.Gate.Criteria,
		Recommendations: doc.Advice(),
		Estimates:       estimateRows(obs),
		WaitFacts:       waitFacts(doc, false),
		ModelFacts:      modelFacts(doc),
		Summary:         figs.summaryRows(),
		Layers:          layerRows(doc.Amplification),
		Amplification:   figs.amplificationRows(),
		Trigger:         figs.triggerRows(),
		Totals:          figs.totalRows(),
		Latency:         figs.Latency,
	}
	if d.Verdict == "" {
		d.Verdict = "no verdict"
	}
	if obs != nil {
		d.Reason = obs.VerdictReason
		d.Findings = obs.Findings
		d.Signals = signalRows(obs)
	}
	if rows := requestTable(obs); rows != nil {
		d.RequestHeader, d.Requests = requestTableHeader, rows
	}

	d.Files = []htmlFile{
		{ResultFile, "the result document (JSON): everything on this page"},
		{TimelineFile, "one row per second: the driver's counts and the service's metrics"},
		{SVGFile, "the chart above"},
		{PNGFile, "the chart as an image"},
		{MarkdownFile, "the summary for a pull-request comment"},
		{JUnitFile, "the gate for CI (one test case per criterion)"},
	}
	return d
}
