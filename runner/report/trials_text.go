package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/trigger-test/trigger/analysis"
)

// WriteTrialsText writes a series of trials (trials.json) for the
// terminal: the odds with their intervals beside the model's, the
// recovery time's spread, the gate, why the series ended and each
// trial's folder; every figure from the document.
func WriteTrialsText(w io.Writer, d analysis.TrialsDocument) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Trials    %s\n", trialsHead(d))
	for _, l := range trialsOdds(d) {
		fmt.Fprintf(&b, "          %s\n", l)
	}
	fmt.Fprintf(&b, "Gate      %s\n", trialsGateText(d.Gate, "\n          "))
	fmt.Fprintf(&b, "Ended     %s\n\n", trialsEnd(d))
	if len(d.Trials) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "trial\tseed\tverdict\trecovery\tA_fail\tgate\tfolder")
		for _, r := range d.Trials {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Index, r.Seed, r.Verdict, trialRecovery(r), orDash(r.AFail, "%.2f"), trialGateWord(r), r.Folder)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTrialsMarkdown writes trials.md: the same figures as
// WriteTrialsText, as a short report.
func WriteTrialsMarkdown(w io.Writer, d analysis.TrialsDocument) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Trials of %s\n\n", md(d.Scenario.Name))
	fmt.Fprintf(&b, "%s.\n\n", md(trialsHead(d)))
	fmt.Fprintf(&b, "Spike ×%g for %g s at %g/s (capacity %g/s, client timeout %g s).\n\n", d.Scenario.Multiplier, d.Scenario.SpikeS, d.Scenario.DemandPerS, d.Scenario.CapacityPerS, d.Scenario.TimeoutS)
	b.WriteString("## Odds\n\n")
	for _, l := range trialsOdds(d) {
		fmt.Fprintf(&b, "- %s\n", md(l))
	}
	fmt.Fprintf(&b, "\n## Gate\n\n%s\n\n", md(trialsGateText(d.Gate, "\n\n")))
	fmt.Fprintf(&b, "Ended: %s\n\n", md(trialsEnd(d)))
	if len(d.Trials) > 0 {
		b.WriteString("## Trials\n\n| trial | seed | verdict | recovery | A_fail | gate | folder |\n|---|---|---|---|---|---|---|\n")
		for _, r := range d.Trials {
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | [%s](%s/report.md) |\n", r.Index, r.Seed, r.Verdict, trialRecovery(r), orDash(r.AFail, "%.2f"),
				md(trialGateWord(r)), r.Folder, r.Folder)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trialsHead names the series: the scenario, trials run of asked, seeds.
func trialsHead(d analysis.TrialsDocument) string {
	s := fmt.Sprintf("%s: %d of %d trials run", d.Scenario.Name, d.TrialsRun, d.TrialsAsked)
	if d.TrialsRun > 0 {
		s += fmt.Sprintf(", seeds %d–%d", d.BaseSeed, d.BaseSeed+uint64(d.TrialsRun)-1)
	}
	return s
}

// trialsOdds are the odds' lines: trapped beside the model, metastable,
// recovered, the trials that could not tell, the recovery's spread.
func trialsOdds(d analysis.TrialsDocument) []string {
	s := d.Summary
	if s == nil {
		out := []string{"no trial ran"}
		if d.Model != nil {
			out = append(out, "model "+d.Model.ModelText())
		}
		return out
	}
	trapped := "trapped " + share(s.Trapped)
	switch m := d.Model; {
	case m != nil && m.Trapped != nil:
		trapped += "; model " + pctInterval(*m.Trapped)
		if in := d.ModelInsideMeasured; in != nil && *in {
			trapped += ", inside the interval"
		} else if in != nil {
			trapped += ", outside the interval"
		}
	case m != nil:
		trapped += "; model " + m.ModelText()
	}
	out := []string{trapped, "metastable " + share(s.Metastable), "recovered " + share(s.Recovered)}
	if s.NoTrigger > 0 || s.Inconclusive > 0 {
		out = append(out, fmt.Sprintf("no trigger in %d (draws that did not trap), inconclusive in %d (no draws: left out)", s.NoTrigger, s.Inconclusive))
	}
	if s.RecoveryMedianS != nil {
		out = append(out, fmt.Sprintf("recovery median %s (from %s to %s over %d recovered)", analysis.FormatSeconds(*s.RecoveryMedianS),
			analysis.FormatSeconds(analysis.Value(s.RecoveryMinS)), analysis.FormatSeconds(analysis.Value(s.RecoveryMaxS)), s.Recovered.Count))
	}
	return out
}

// share is "in 4 of 10 trials: 40 % (95 %: 17–69 %)".
func share(p analysis.Proportion) string {
	return fmt.Sprintf("in %d of %d trials: %s", p.Count, p.Of, pctInterval(p))
}

// pctInterval is "40 % (95 %: 17–69 %)".
func pctInterval(p analysis.Proportion) string {
	if math.IsNaN(p.P) {
		return "unknown"
	}
	return fmt.Sprintf("%s (95 %%: %s)", analysis.Percent(p.P), analysis.PercentRange(p.Lo, p.Hi))
}

// trialsGateText is the series' gate: the verdict, the probability
// against max_trap_probability, and every failure or reason, sep between.
func trialsGateText(g analysis.TrialsGate, sep string) string {
	head := "passed"
	switch {
	case g.Inconclusive:
		head = "NOT JUDGED (inconclusive)"
	case !g.Passed:
		head = "FAILED"
	}
	if g.MaxTrapProbability != nil {
		head += fmt.Sprintf(": max_trap_probability %g", *g.MaxTrapProbability)
		if g.TrapProbability != nil {
			head += fmt.Sprintf(", P(trapped or metastable) %d of %d, upper end %s", g.TrapProbability.Count, g.TrapProbability.Of, analysis.Percent(g.TrapProbability.Hi))
		}
		if g.CleanTrialsNeeded != nil {
			head += fmt.Sprintf("; it takes %d clean trials", *g.CleanTrialsNeeded)
		}
	} else {
		head += ": every trial's own gate"
	}
	lines := []string{head}
	if g.CannotPass != "" {
		lines = append(lines, "✗ "+g.CannotPass)
	}
	for _, f := range g.Failures {
		lines = append(lines, "✗ "+f)
	}
	for _, r := range g.Reasons {
		lines = append(lines, "? "+r)
	}
	return strings.Join(lines, sep)
}

// trialsEnd is why the series ended, and how.
func trialsEnd(d analysis.TrialsDocument) string {
	s := d.StoppedReason
	if s == "" {
		s = "under way"
	}
	if d.StoppedEarly && !strings.Contains(s, "early") {
		s = "early: " + s
	}
	return s + " (" + d.Outcome + ")"
}

// trialRecovery is a trial's recovery time, or its recovery-budget
// criterion's word.
func trialRecovery(r analysis.TrialRow) string {
	if r.RecoveryS == nil {
		return "-"
	}
	s := analysis.FormatSeconds(*r.RecoveryS)
	if g := r.RecoveryGate; g != nil && !g.Passed {
		s += " (over budget)"
	}
	return s
}

// trialGateWord is the trial's own gate in a word: "could not tell" for
// a trial whose only criteria not passed are the trigger, the evidence
// or one it cannot judge.
func trialGateWord(r analysis.TrialRow) string {
	if r.Gate.Passed {
		return "passed"
	}
	for _, c := range r.Gate.Criteria {
		if !c.Passed && !c.NotJudged && c.Name != "trigger" && c.Name != "evidence" {
			return "failed"
		}
	}
	if r.Verdict == analysis.VerdictNoTrigger || r.Verdict == analysis.VerdictInconclusive {
		return "could not tell"
	}
	return "not judged"
}
