package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// The outputs of `trigger compare`: text for a terminal, Markdown for a
// pull-request comment, JUnit for CI (one case per compared figure, and
// one for the verdict). Each says first whether the runs could be
// compared, then what regressed.

// CompareHeadline is the comparison in one line.
func CompareHeadline(c analysis.Comparison) string {
	switch {
	case !c.Comparable:
		return "not comparable: " + strings.Join(c.NotComparable, "; ")
	case c.Regressed:
		return "REGRESSION: " + strings.Join(regressions(c), "; ")
	}
	if unmeasured := unmeasuredGated(c); len(unmeasured) > 0 {
		return "no regression; not compared: " + strings.Join(unmeasured, "; ")
	}
	return "no regression"
}

// unmeasuredGated names the gated figures a run did not measure, and
// which run: "no regression" must not read as if they were compared.
func unmeasuredGated(c analysis.Comparison) []string {
	var out []string
	for _, f := range c.Figures {
		if f.Threshold == nil {
			continue
		}
		var missing string
		switch {
		case f.Base == nil && f.Cand == nil:
			missing = "either run"
		case f.Base == nil:
			missing = "the baseline"
		case f.Cand == nil:
			missing = "the candidate"
		default:
			continue
		}
		out = append(out, f.Label+" (not measured in "+missing+")")
	}
	return out
}

// regressions names what regressed.
func regressions(c analysis.Comparison) []string {
	var out []string
	if c.VerdictRegressed {
		out = append(out, fmt.Sprintf("the verdict went from %s to %s", c.BaseVerdict, c.Verdict))
	}
	for _, f := range c.Figures {
		if f.Regressed {
			out = append(out, fmt.Sprintf("%s %s → %s (%s, above %s)", f.Label, figValue(f.Base, f.Unit), figValue(f.Cand, f.Unit),
				relText(f.Rel), relText(f.Threshold)))
		}
	}
	return out
}

// compareRows are the table of figures: label, baseline (interval),
// candidate (interval), difference, and what it means.
func compareRows(c analysis.Comparison) [][]string {
	rows := [][]string{{"Verdict", string(c.BaseVerdict), string(c.Verdict), "", verdictWord(c)}}
	for _, f := range c.Figures {
		diff := unknown
		if f.Diff != nil {
			diff = signed(*f.Diff, f.Unit)
			if f.Rel != nil {
				diff += " (" + relText(f.Rel) + ")"
			}
		}
		rows = append(rows, []string{f.Label, withBounds(f.Base, f.BaseLo, f.BaseHi, f.Unit), withBounds(f.Cand, f.CandLo, f.CandHi, f.Unit), diff, figWord(f)})
	}
	return rows
}

var compareHeader = []string{"", "baseline", "candidate", "difference", ""}

func verdictWord(c analysis.Comparison) string {
	switch {
	case c.VerdictRegressed:
		return "REGRESSED"
	case c.BaseVerdict == c.Verdict:
		return "same"
	}
	return "ok"
}

func figWord(f analysis.ComparedFigure) string {
	switch {
	case f.Regressed:
		return "REGRESSED"
	case f.Note != "":
		return f.Note
	case f.Beyond:
		return "grew beyond noise, within " + relText(f.Threshold)
	}
	return "within noise"
}

func figValue(p *float64, unit string) string {
	if p == nil {
		return unknown
	}
	if unit == "s" {
		return analysis.FormatSeconds(*p)
	}
	return num(*p)
}

func withBounds(v, lo, hi *float64, unit string) string {
	s := figValue(v, unit)
	if v != nil && lo != nil && hi != nil {
		s += fmt.Sprintf(" [%s–%s]", num(*lo), num(*hi))
	}
	return s
}

func signed(x float64, unit string) string {
	s := num(x)
	if x > 0 {
		s = "+" + s
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

func relText(p *float64) string {
	if p == nil {
		return unknown
	}
	pct := math.Round(100 * *p)
	if pct == 0 {
		return "0 %" // never "-0 %" for a change that rounds to nothing
	}
	s := strconv.FormatFloat(pct, 'f', 0, 64) + " %"
	if pct > 0 {
		s = "+" + s
	}
	return s
}

// WriteCompareText writes the comparison for a terminal.
func WriteCompareText(w io.Writer, c analysis.Comparison, base, cand string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "baseline   %s\ncandidate  %s\n\n%s\n\n", base, cand, CompareHeadline(c))
	rows := append([][]string{compareHeader}, compareRows(c)...)
	widths := make([]int, len(compareHeader))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, r := range rows {
		for i, cell := range r {
			pad := widths[i] - len([]rune(cell))
			if i == len(r)-1 {
				pad = 0
			}
			fmt.Fprintf(bw, "%s%s", cell, strings.Repeat(" ", pad+2))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "\nA figure regresses when the intervals do not overlap and it grew past its threshold (recovery %s, amplification %s).\n",
		relText(analysis.Num(c.Thresholds.MaxRecoveryRegression)), relText(analysis.Num(c.Thresholds.MaxAmplificationRegression)))
	return bw.Flush()
}

// WriteCompareMarkdown writes the comparison for a pull-request comment.
func WriteCompareMarkdown(w io.Writer, c analysis.Comparison, base, cand string) error {
	bw := bufio.NewWriter(w)
	mark := "✅"
	if !c.Comparable {
		mark = "⚠️"
	} else if c.Regressed {
		mark = "❌"
	}
	fmt.Fprintf(bw, "## %s trigger compare: %s\n\n", mark, md(CompareHeadline(c)))
	fmt.Fprintf(bw, "Baseline `%s`, candidate `%s`.\n\n", base, cand)
	fmt.Fprintf(bw, "| %s |\n|%s\n", strings.Join([]string{"figure", "baseline", "candidate", "difference", ""}, " | "), strings.Repeat("---|", len(compareHeader)))
	for _, r := range compareRows(c) {
		for i := range r {
			r[i] = md(r[i])
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintf(bw, "\n<sub>A figure regresses when the intervals do not overlap and it grew past its threshold (recovery %s, amplification %s).</sub>\n",
		relText(analysis.Num(c.Thresholds.MaxRecoveryRegression)), relText(analysis.Num(c.Thresholds.MaxAmplificationRegression)))
	return bw.Flush()
}

// WriteCompareJUnit writes the comparison as JUnit: a "comparable" case,
// a "verdict" case and one case per figure, failed when it regressed (or
// when the runs are not comparable).
func WriteCompareJUnit(w io.Writer, c analysis.Comparison) error {
	suite := junitSuite{Name: "trigger compare", Time: "0"}
	add := func(name string, failed bool, msg string) {
		tc := junitCase{Name: name, ClassName: "trigger.compare", Time: "0"}
		if failed {
			tc.Failure = &junitFailure{Message: msg, Type: "regression", Text: msg}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	add("comparable", !c.Comparable, strings.Join(c.NotComparable, "; "))
	add("verdict", c.VerdictRegressed, fmt.Sprintf("the verdict went from %s to %s", c.BaseVerdict, c.Verdict))
	for _, f := range c.Figures {
		add(f.Name, f.Regressed, fmt.Sprintf("%s: %s → %s (%s, above %s)", f.Label, figValue(f.Base, f.Unit), figValue(f.Cand, f.Unit), relText(f.Rel), relText(f.Threshold)))
		if f.Base == nil && f.Cand == nil {
			// Neither run measured it: not a pass, not a failure.
			suite.Cases[len(suite.Cases)-1].Skipped = &junitSkipped{Message: f.Note}
			suite.Skipped++
		}
	}
	suite.Tests = len(suite.Cases)
	root := junitSuites{Name: "trigger", Tests: suite.Tests, Failures: suite.Failures, Time: "0", Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
