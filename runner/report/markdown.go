package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// MarkdownFile is the report for a pull-request comment, in a run's folder.
const MarkdownFile = "report.md"

// WriteMarkdown writes the report for a pull-request comment (GitHub
// flavoured Markdown): a headline with the verdict and the gate (✅/❌), a
// short table of the verdict, recovery, A_fail (with its 95 % interval),
// hidden factor, work lost, refusals and failed first attempts against the
// prediction, the gate's criteria, the predicted-against-measured
// estimates with their intervals, the wait signal the verdict judged (its
// source, delay and slope, a shorter patience, the Prometheus signals'
// delays) and the findings. Text from the document is escaped, so a
// scenario cannot inject markup or break a table.
func WriteMarkdown(w io.Writer, doc analysis.Document) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	obs := doc.Observation

	mark := "❌"
	if doc.Gate.Passed && len(doc.Gate.Criteria) > 0 {
		mark = "✅"
	}
	p("## %s %s “%s”: %s, %s\n\n", mark, kindTitle(doc), md(scenarioName(doc)), md(verdictHeadline(doc)), gateWords(doc.Gate))
	if doc.Scenario.Description != "" {
		p("%s\n\n", md(doc.Scenario.Description))
	}
	for _, n := range notices(doc) {
		p("> ⚠️ %s\n\n", md(n))
	}

	p("| | measured | predicted |\n|---|---|---|\n")
	p("| Verdict | **%s** | %s |\n", md(string(doc.Verdict)), md(string(doc.Prediction.Verdict)))
	p("| Recovery after the spike | %s | %s |\n", md(recoveryMeasured(doc)), md(recoveryPredicted(doc)))
	a := doc.Amplification
	p("| A_fail (attempts at the service per first attempt) | %s | %s |\n", md(aFailMeasured(a)), num(a.Predicted))
	if a.Standing != nil && a.Standing.From != "A_fail" {
		p("| A, as the run measured it | %s | %s |\n", md(standingText(a)), num(a.Predicted))
	}
	p("| Hidden factor A_fail / A_client | %s | %s |\n", numPtr(doc.Amplification.Hidden), num(predictedHidden(doc)))
	p("| Work lost | %s | |\n", md(workLost(obs)))
	if obs != nil {
		p("| Refused (503/429) | %s | |\n", numPtr(obs.Refused))
		if s := firstFailedText(obs); s != "" {
			p("| First attempts failed | %s | |\n", md(s))
		}
	}
	if s := onTrapText(doc); s != "" {
		p("| on_trap | %s | |\n", md(s))
	}
	p("\n")
	if obs != nil && obs.VerdictReason != "" {
		p("Verdict: %s.\n\n", md(obs.VerdictReason))
	}

	p("### Gate: %s\n\n", gateOutcome(doc.Gate))
	if len(doc.Gate.Criteria) == 0 {
		p("- ❌ the gate was not evaluated\n")
	}
	for _, c := range doc.Gate.Criteria {
		m := "❌"
		if c.Passed {
			m = "✅"
		}
		p("- %s **%s**: %s\n", m, md(c.Name), md(c.Detail))
	}
	p("\n")

	if obs != nil && len(obs.Estimates) > 0 {
		p("### Predicted vs measured\n\n| quantity | predicted | measured | note |\n|---|---|---|---|\n")
		for _, e := range obs.Estimates {
			p("| %s | %s | %s | %s |\n", md(e.Label), md(withUnit(e.Predicted, e.Unit)),
				md(withInterval(e.Measured, e.MeasuredLo, e.MeasuredHi, e.Unit)), md(e.Note))
		}
		p("\n")
	}

	if rows := requestTable(obs); rows != nil {
		p("### Requests\n\n| %s |\n|%s\n", strings.Join(requestTableHeader, " | "), strings.Repeat("---|", len(requestTableHeader)))
		for _, r := range rows {
			for i := range r {
				r[i] = md(r[i])
			}
			p("| %s |\n", strings.Join(r, " | "))
		}
		p("\n")
	}

	writeMarkdownWait(p, doc)

	if obs != nil && len(obs.Findings) > 0 {
		p("### Findings\n\n")
		for _, f := range obs.Findings {
			p("- %s\n", md(f))
		}
		p("\n")
	}
	if facts := modelFacts(doc); len(facts) > 0 {
		p("### Model\n\n")
		for _, f := range facts {
			p("- %s\n", md(f))
		}
		p("\n")
	}
	if recs := doc.Advice(); len(recs) > 0 {
		p("### Advice\n\n")
		for _, r := range recs {
			p("- %s\n", md(r))
		}
		p("\n")
	}

	var foot []string
	if doc.Scenario.File != "" {
		foot = append(foot, "scenario "+md(doc.Scenario.File))
	}
	if obs != nil && obs.EndS > 0 {
		foot = append(foot, "run of "+analysis.FormatSeconds(obs.EndS))
	}
	foot = append(foot, "details in "+HTMLFile+", "+JUnitFile+", "+ResultFile+" and "+TimelineFile)
	p("<sub>%s</sub>\n", strings.Join(foot, " · "))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("markdown: %w", err)
	}
	return nil
}

// writeMarkdownWait writes the wait signal the verdict judged, when the
// document says anything about it: one line per fact, then the Prometheus
// signals' table.
func writeMarkdownWait(p func(string, ...any), doc analysis.Document) {
	facts := waitFacts(doc, true)
	signals := signalRows(doc.Observation)
	if len(facts) == 0 && len(signals) == 0 {
		return
	}
	p("### Wait signal\n\n")
	for _, f := range facts {
		p("- %s: %s\n", md(f.Label), md(f.Value))
	}
	if len(signals) > 0 {
		if len(facts) > 0 {
			p("\n")
		}
		p("| Prometheus signal | range window | scrape interval | delay after the spike |\n|---|---|---|---|\n")
		for _, s := range signals {
			p("| %s | %s | %s | %s |\n", md(s.Name), md(s.Range), md(s.Scrape), md(s.Delay))
		}
	}
	p("\n")
}

// gateWords is the gate's outcome in two words.
func gateWords(g analysis.GateResult) string { return "gate " + gateOutcome(g) }

// gateOutcome is passed, failed or not evaluated.
func gateOutcome(g analysis.GateResult) string {
	switch {
	case len(g.Criteria) == 0:
		return "not evaluated"
	case g.Passed:
		return "passed"
	}
	return "failed"
}

// mdEscaper escapes what Markdown would read as markup, table cell
// boundaries or HTML. Underscores are left alone: GitHub does not
// emphasise inside words (A_fail, τ_out, on_trap).
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "`", "\\`", "[", `\[`, "]", `\]`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "\r\n", " ", "\n", " ", "\r", " ",
)

// md escapes document text for Markdown, on one line.
func md(s string) string { return mdEscaper.Replace(s) }
