package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"

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
// trigger check and the files of the run. Text from the document is
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
	SVG                                       template.HTML
	ChartError                                string
	Summary                                   []htmlRow
	Criteria                                  []analysis.GateCriterion
	Estimates                                 []htmlEstimate
	WaitFacts                                 []fact
	Signals                                   []signalRow
	Findings, Recommendations                 []string
	ModelFacts                                []string
	Layers                                    []htmlLayer
	Amplification                             []htmlRow
	Trigger                                   []htmlRow
	Totals                                    []htmlRow
	// RequestHeader and Requests are the table of a mix's requests
	// (requestTable); nil for one request.
	RequestHeader []string
	Requests      [][]string
	Files         []htmlFile
}

// htmlRow is a label with a measured and a predicted value.
type htmlRow struct{ Label, Measured, Predicted string }

type htmlEstimate struct{ Label, Predicted, Measured, Note string }

type htmlLayer struct{ Name, Retries, Probability, Budget, Factor string }

type htmlFile struct{ Name, What string }

func newHTMLData(doc analysis.Document, dir string) htmlData {
	obs := doc.Observation
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
		Criteria:        doc.Gate.Criteria,
		Recommendations: doc.Advice(),
	}
	if d.Verdict == "" {
		d.Verdict = "no verdict"
	}
	if obs != nil {
		d.Reason = obs.VerdictReason
		d.Findings = obs.Findings
		for _, e := range obs.Estimates {
			d.Estimates = append(d.Estimates, htmlEstimate{e.Label, withUnit(e.Predicted, e.Unit),
				withInterval(e.Measured, e.MeasuredLo, e.MeasuredHi, e.Unit), e.Note})
		}
		d.Signals = signalRows(obs)
	}
	d.WaitFacts = waitFacts(doc, false)
	d.ModelFacts = modelFacts(doc)

	d.Summary = []htmlRow{
		{"Verdict", string(doc.Verdict), string(doc.Prediction.Verdict)},
		{"Recovery after the spike", recoveryMeasured(doc), recoveryPredicted(doc)},
	}
	if doc.Prediction.RecoveryWithRetryLagS != nil {
		d.Summary = append(d.Summary, htmlRow{"Recovery, counting the retries' lag", "", secPtr(doc.Prediction.RecoveryWithRetryLagS)})
	}
	if obs != nil && obs.PredictedRecoveryS != nil {
		at := obs.PredictedRecoveryFrom
		if at == "" {
			at = "the measured A_fail and ρ"
		}
		d.Summary = append(d.Summary, htmlRow{"Recovery from the formula at " + at, "", secPtr(obs.PredictedRecoveryS)})
	}
	if obs != nil {
		d.Summary = append(d.Summary,
			htmlRow{"Peak wait", secPtr(obs.PeakWaitS), analysis.FormatSeconds(doc.Prediction.PeakWaitS)},
			htmlRow{"Wait at the end", secPtr(obs.FinalWaitS), ""},
			htmlRow{"Wait slope at the end (A·ρ − 1)", withInterval(obs.WaitSlope, obs.WaitSlopeLo, obs.WaitSlopeHi, "s/s"), num(doc.Prediction.AmplifiedUtilization-1) + " s/s"},
		)
	}
	if s := onTrapText(doc); s != "" {
		d.Summary = append(d.Summary, htmlRow{"on_trap", s, ""})
	}

	a := doc.Amplification
	for _, l := range a.Layers {
		row := htmlLayer{Name: l.Name, Retries: strconv.Itoa(l.MaxRetries), Probability: "1", Budget: unknown, Factor: num(l.Amplification)}
		if l.RetryProbability > 0 {
			row.Probability = num(l.RetryProbability)
		}
		if l.HasBudget {
			row.Budget = "β = " + num(l.Budget)
		}
		d.Layers = append(d.Layers, row)
	}
	d.Amplification = []htmlRow{
		{"A_client: attempts the clients send per first attempt", unknown, num(a.Client)},
		{"A_fail: attempts reaching the service per first attempt", aFailMeasured(a), num(a.Predicted)},
		{"Hidden factor A_fail / A_client", numPtr(a.Hidden), num(predictedHidden(doc))},
		{"A, as the run stands by it", standingText(a), num(a.Predicted)},
		{"Trap threshold 1/A (utilization at which a trigger traps)", unknown, num(doc.Prediction.TrapThreshold)},
		{"A·ρ (trapped at 1 or more)", unknown, num(doc.Prediction.AmplifiedUtilization)},
	}
	if obs != nil {
		d.Amplification[0].Measured = numPtr(obs.AmplificationClient)
		if obs.AmplificationFromSlope != nil || obs.AmplificationFromRecovery != nil {
			d.Amplification = append(d.Amplification,
				htmlRow{"A from the wait's slope, (slope + 1)/ρ", numPtr(obs.AmplificationFromSlope), ""},
				htmlRow{"A from the recovery time, formula inverted", numPtr(obs.AmplificationFromRecovery), ""})
		}
		if obs.Utilization != nil && a.Measured != nil {
			d.Amplification[4].Measured = num(*obs.Utilization * *a.Measured)
		}
		if a.Measured != nil && *a.Measured > 0 {
			d.Amplification[3].Measured = num(1 / *a.Measured)
		}
	}

	t := doc.Trigger
	valid := "no: the spike cannot push the wait past the timeout"
	if t.Valid {
		valid = "yes"
	}
	d.Trigger = []htmlRow{
		{"Spike is a trigger, (k·ρ − 1)·Δ > τ_out", "", valid},
		{"Overload (k·ρ − 1)·Δ", "", num(t.OverloadS) + " s"},
		{"Client timeout τ_out", "", analysis.FormatSeconds(t.TimeoutS)},
		{"Margin, overload / τ_out", "", num(t.Margin)},
		{"t0: wait crosses τ_out after the spike starts", unknown, secPtr(t.T0S)},
		{"Smallest trigger multiple k for this Δ", "", numPtr(doc.Prediction.MinMultiplier)},
		{"Smallest trigger length Δ for this k", "", secPtr(doc.Prediction.MinSpikeS)},
	}
	if obs != nil {
		d.Trigger[4].Measured = secPtr(obs.T0S)
		d.Totals = []htmlRow{
			{"Attempts timed out", numPtr(obs.TimedOut), ""},
			{"Attempts refused (503/429)", numPtr(obs.Refused), ""},
		}
		if s := firstFailedText(obs); s != "" {
			d.Totals = append(d.Totals, htmlRow{"First attempts failed", s, ""})
		}
		d.Totals = append(d.Totals, []htmlRow{
			{"Requests failed (every attempt)", numPtr(obs.FailedRequests), ""},
			{"Work lost, seconds of demand", secPtr(obs.LostWorkS), ""},
			{"Served after the client left (retry debt)", numPtr(obs.Abandoned), ""},
		}...)
		if obs.Dropped != nil || obs.RefusedInFlight != nil {
			d.Totals = append(d.Totals,
				htmlRow{"First attempts the driver dropped (lag bound)", numPtr(obs.Dropped), ""},
				htmlRow{"Attempts refused at max_in_flight", numPtr(obs.RefusedInFlight), ""})
		}
		if obs.EndS > 0 {
			d.Totals = append(d.Totals, htmlRow{"Length of the run", analysis.FormatSeconds(obs.EndS), ""})
		}
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
