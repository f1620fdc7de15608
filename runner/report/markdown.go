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
// flavoured Markdown): a headline with the verdict and the gate (✅/❌),
// when the run started, its target and the trigger that ran it, a short
// table of the verdict, recovery, A_fail (with its 95 % interval), the A
// the run stands by when it is not A_fail, hidden factor, work lost,
// refusals and failed first attempts against the prediction (the
// figures of report.html, by the same labels), the gate's criteria, the
// measured-against-predicted estimates with their intervals, a mix's
// requests, the first attempts' latency by phase (the table of
// report.html; that a fleet's run did not measure it), the wait
// signal the verdict judged (its source, delay and slope, a shorter
// patience, the Prometheus signals' delays), the findings, the model and
// the advice (doc.Advice). Text from the document is escaped, so a
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
	var placed []string
	for _, f := range runFacts(doc) {
		placed = append(placed, md(f.Label)+": "+md(f.Value))
	}
	p("%s\n\n", strings.Join(placed, " · "))
	for _, n := range notices(doc) {
		p("> ⚠️ %s\n\n", md(n))
	}

	figs := newFigures(doc)
	a := doc.Amplification
	standing := figs.Standing
	if a.Standing == nil || a.Standing.From == "A_fail" {
		standing = nil // the A_fail row says it already
	}
	p("| | measured | predicted |\n|---|---|---|\n")
	v := figs.Verdict
	p("%s\n", mdRow(md(v.Label), "**"+md(v.Measured)+"**", md(v.Predicted)))
	for _, f := range rows(figs.TrapOdds, figs.Recovery, figs.AFail, standing, figs.Hidden, figs.WorkLost, figs.Refused, figs.FirstFailed, figs.OnTrap) {
		p("%s\n", mdRow(md(f.Label), md(f.Measured), md(f.Predicted)))
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
		switch {
		case c.Passed:
			m = "✅"
		case c.NotJudged:
			m = "❔"
		}
		p("- %s **%s**: %s\n", m, md(c.Name), md(c.Detail))
	}
	p("\n")

	if est := estimateRows(obs); len(est) > 0 {
		p("### Measured vs predicted\n\n| quantity | measured | predicted | note |\n|---|---|---|---|\n")
		for _, e := range est {
			p("| %s | %s | %s | %s |\n", md(e.Label), md(e.Measured), md(e.Predicted), md(e.Note))
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

	writeMarkdownLatency(p, figs.Latency)
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

// writeMarkdownLatency writes the first attempts' latency by phase, the
// table of report.html, or that a fleet's run did not measure it; nothing
// for a document without it.
func writeMarkdownLatency(p func(string, ...any), t *latencyTable) {
	if t == nil {
		return
	}
	p("### %s\n\n", latencyTitle)
	if t.NotMeasured != "" {
		p("%s\n\n", md(t.NotMeasured))
		return
	}
	h := t.Header()
	p("| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat("---|", len(h)))
	for _, r := range t.Cells() {
		for i := range r {
			r[i] = md(r[i])
		}
		p("| %s |\n", strings.Join(r, " | "))
	}
	p("\n")
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

// mdRow is a table row of cells already escaped: "| a | b | |", an empty
// cell as one space.
func mdRow(cells ...string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cells {
		if c != "" {
			b.WriteString(" " + c)
		}
		b.WriteString(" |")
	}
	return b.String()
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
	case g.OnlyNotJudged():
		return "not judged"
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
