package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/vocab"
)

// textWriter prints labelled lines: "Label        text".
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(label, format string, args ...any) {
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, "%-15s%s\n", label, fmt.Sprintf(format, args...))
}

func (t *textWriter) raw(format string, args ...any) {
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, format, args...)
}

// printDocument writes the document for people: the scenario, when its
// run started, its target and the trigger that ran it, the trigger
// check, the amplification, the prediction, the observation when there is
// one, the gate and the advice.
func printDocument(w io.Writer, doc analysis.Document) error {
	t := &textWriter{w: w}
	sc, p := doc.Scenario, doc.Prediction
	title := sc.Name
	if sc.Description != "" {
		title += " — " + sc.Description
	}
	t.raw("%s\n", title)
	if sc.File != "" {
		t.raw("%s\n", sc.File)
	}
	t.raw("%s\n", report.RunLine(doc))
	t.raw("\n")
	t.line("Service", "C = %s/s   λ = %s/s   ρ = %.2f   τ_out = %s%s", num(sc.CapacityPerS), num(sc.DemandPerS), sc.Utilization,
		analysis.FormatSeconds(sc.TimeoutS), boundText(sc))
	patience := "τ_out"
	if sc.PatienceS > 0 && sc.PatienceS < sc.TimeoutS {
		patience = "the patience"
		t.line("Patience", "%s, %s: a longer wait fails every attempt", analysis.FormatSeconds(sc.PatienceS), sc.PatienceFrom)
	}
	if f := sc.Fault; f != nil {
		t.line("Fault", "%s: capacity to %s %% (C′ = %s/s) for Δ = %s, after %s of warmup, watched for %s", f.Name, num(100*f.Capacity),
			num(f.Capacity*sc.CapacityPerS), analysis.FormatSeconds(f.DurationS), analysis.FormatSeconds(sc.WarmupS), analysis.FormatSeconds(sc.ObserveS))
	} else {
		t.line("Spike", "k = %s for Δ = %s (%s/s), after %s of warmup, watched for %s", num(sc.Multiplier), analysis.FormatSeconds(sc.SpikeS),
			num(sc.Multiplier*sc.DemandPerS), analysis.FormatSeconds(sc.WarmupS), analysis.FormatSeconds(sc.ObserveS))
	}
	if len(sc.Requests) > 0 {
		var parts []string
		costed := true
		for _, r := range sc.Requests {
			part := fmt.Sprintf("%s %.0f %%", r.Name, 100*r.Share)
			if r.CostS != nil {
				part += fmt.Sprintf(" at %s ms", num(1000**r.CostS))
			} else {
				costed = false
			}
			parts = append(parts, part)
		}
		t.line("Requests", "%s of first attempts, drawn by weight", strings.Join(parts, ", "))
		if costed {
			t.line("", "their costs give the mix's capacity C = 1/Σ wᵢ·sᵢ = %s/s", num(sc.CapacityPerS))
		}
	}

	tr := doc.Trigger
	overload := "(k·ρ − 1)·Δ"
	if sc.Fault != nil {
		overload = "(λ/C′ − 1)·Δ"
	}
	if l := doc.LatencyLaw; l != nil && l.FloorS > 0 {
		patience = "the wait's patience (τ less L₀)"
	}
	if doc.Prediction.CapacityAtTimeoutPerS != nil {
		overload = "the wait at the spike's end (the law's N/C)"
	}
	if tr.Valid {
		t.line("Trigger", "yes: %s = %.2f s > %s = %s, margin %.2f, t0 = %s", overload, tr.OverloadS, patience, analysis.FormatSeconds(tr.TimeoutS), tr.Margin, analysis.FormatSeconds(analysis.Value(tr.T0S)))
	} else {
		t.line("Trigger", "NO: %s = %.2f s ≤ %s = %s: the wait never passes it", overload, tr.OverloadS, patience, analysis.FormatSeconds(tr.TimeoutS))
	}
	if f := sc.Fault; f != nil {
		shortest := "no fault triggers at this capacity (λ ≤ C′)"
		if p.MinFaultS != nil {
			shortest = "Δ > " + analysis.FormatSeconds(*p.MinFaultS) + " at this capacity"
		}
		t.line("", "smallest trigger: a capacity loss above %s %% (C′/C < %s) for this Δ; %s", num(100*(1-analysis.Value(p.MaxFaultCapacity))),
			num(analysis.Value(p.MaxFaultCapacity)), shortest)
	} else if p.MinSpikeS != nil {
		t.line("", "smallest trigger: k > %s for this Δ; Δ > %s for this k", optNum(p.MinMultiplier), analysis.FormatSeconds(*p.MinSpikeS))
	} else {
		t.line("", "smallest trigger: k > %s for this Δ; no Δ triggers at this k (k·ρ ≤ 1)", optNum(p.MinMultiplier))
	}

	amp := doc.Amplification
	var parts []string
	for _, l := range amp.Layers {
		part := fmt.Sprintf("%s ×%s", l.Name, num(l.Amplification))
		if !l.RetriesInFailedState() && l.MaxRetries > 0 {
			// Its retries are not what A is made of: say why.
			part += fmt.Sprintf(" (retries %s, sees %s)", strings.Join(vocab.Names(l.On), ", "), l.Sees)
		}
		parts = append(parts, part)
	}
	t.line("Amplification", "%s → A = %s", strings.Join(parts, " · "), num(amp.Predicted))
	if amp.Measured != nil {
		hidden := ""
		if amp.Hidden != nil {
			hidden = fmt.Sprintf(", hidden factor %.2f", *amp.Hidden)
		}
		t.line("", "measured A_fail = %s%s", intervalText(amp.Measured, amp.MeasuredLo, amp.MeasuredHi), hidden)
	} else if amp.MeasuredNote != "" && doc.Kind == "run" {
		bound := ""
		switch {
		case amp.MeasuredAtLeast != nil:
			bound = fmt.Sprintf(" (the counters give A_fail ≥ %.2f)", *amp.MeasuredAtLeast)
		case amp.MeasuredAtMost != nil:
			bound = fmt.Sprintf(" (the counters give A_fail < %.2f)", *amp.MeasuredAtMost)
		}
		t.line("", "A_fail not measured%s", bound)
	}
	if st := amp.Standing; st != nil && st.From != "A_fail" {
		t.line("", "measured %s = %s", st.From, intervalText(&st.Value, st.Lo, st.Hi))
	}
	if l := doc.LatencyLaw; l != nil {
		t.line("Latency law", "%s", report.LawText(*l))
	}
	trap := "retries alone cannot hold a failed state (a service that loses capacity under load still can)"
	switch {
	case p.AmplifiedUtilization >= 1 && p.AdmissionBound != nil && p.AdmissionBound.Holds:
		trap = "vulnerable, but the admission bound b < τ_out keeps debt from forming"
	case p.AmplifiedUtilization >= 1:
		trap = "once triggered, the service stays failed"
	}
	if c := p.CapacityAtTimeoutPerS; c != nil {
		t.line("Trap", "A·λ/C_τ = %.2f (C_τ = %.1f/s, the throughput at the patience): %s", p.AmplifiedUtilization, *c, trap)
	} else {
		t.line("Trap", "1/A = %.2f   A·ρ = %.2f: %s", p.TrapThreshold, p.AmplifiedUtilization, trap)
	}
	t.line("Prediction", "%s", predictionText(p))
	if p.JudgeAfterS != nil {
		t.line("", "a trap shows %s after the spike at the soonest (%s)", analysis.FormatSeconds(*p.JudgeAfterS), p.JudgeAfterNote)
	}
	if tp := doc.TrapProbability; tp != nil {
		t.line("P(trap)", "model %s", tp.ModelText())
		if s := analysis.OneDrawText(doc.Kind, doc.Verdict); s != "" {
			t.line("", "%s", s)
		}
	}
	if s := p.Scaler; s != nil {
		t.line("Autoscaler", "%s at %.0f %%: %s", s.Signal, 100*s.Target, escapeWord(s.Escapes))
	}
	if c := p.Ceiling; c != nil {
		t.line("Ceiling", "M = %d, M* = A·λ/c = %.1f: %s%s", c.MaxReplicas, c.CeilingFloorPods, escapeWord(c.Escapes), bandText(c.Band))
	}
	if o := doc.Observation; o != nil {
		t.line("Model", "%s: %s", o.Source, observationText(doc))
	}
	for i, l := range latencyLines(doc) {
		t.line(map[bool]string{true: "Latency"}[i == 0], "%s", l)
	}
	if f := doc.Fleet; f != nil {
		t.line("Agents", "%s", fleetText(f))
	}
	t.line("Verdict", "%s%s", strings.ToUpper(string(doc.Verdict)), recoveryText(doc))
	if o := doc.Observation; o != nil && o.SustainedBy != nil {
		t.line("Held down by", "%s", string(o.SustainedBy.Effect)+": "+o.SustainedBy.Note)
	}
	t.line("Gate", "%s", gateText(doc.Gate))
	if o := doc.Observation; o != nil && len(o.Findings) > 0 {
		t.raw("\nFindings\n")
		for _, f := range o.Findings {
			t.raw("  • %s\n", f)
		}
	}
	if advice := doc.Advice(); len(advice) > 0 {
		t.raw("\nAdvice\n")
		for _, r := range advice {
			t.raw("  • %s\n", r)
		}
	}
	return t.err
}

// intervalText prints a nullable estimate with its nullable interval:
// "9.02 (8.91–9.13)", or "9.02" without one.
func intervalText(v, lo, hi *float64) string {
	if lo == nil || hi == nil {
		return fmt.Sprintf("%.2f", analysis.Value(v))
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", analysis.Value(v), *lo, *hi)
}

func boundText(sc analysis.ScenarioSection) string {
	if sc.AdmissionBoundS == 0 {
		return ""
	}
	return "   b = " + analysis.FormatSeconds(sc.AdmissionBoundS)
}

func predictionText(p analysis.Prediction) string {
	switch p.Verdict {
	case analysis.VerdictNoTrigger:
		return "no trigger: the spike cannot push waits past the timeout"
	case analysis.VerdictTrapped:
		return fmt.Sprintf("trapped: the wait keeps growing after the spike (peak at spike end %s)", analysis.FormatSeconds(p.PeakWaitS))
	}
	s := string(p.Verdict)
	if p.RecoveryS != nil {
		s += " in " + analysis.FormatSeconds(*p.RecoveryS)
		if p.RecoveryWithRetryLagS != nil {
			s += fmt.Sprintf(" (%s counting the retries' lag)", analysis.FormatSeconds(*p.RecoveryWithRetryLagS))
		}
	}
	return s + fmt.Sprintf(", peak wait %s", analysis.FormatSeconds(p.PeakWaitS))
}

func observationText(doc analysis.Document) string {
	o := doc.Observation
	var parts []string
	if o.T0S != nil {
		parts = append(parts, "t0 = "+analysis.FormatSeconds(*o.T0S))
	}
	if o.PeakWaitS != nil {
		parts = append(parts, "peak wait "+analysis.FormatSeconds(*o.PeakWaitS))
	}
	if o.AmplificationFailed != nil {
		parts = append(parts, fmt.Sprintf("A_fail %.2f", *o.AmplificationFailed))
	}
	if o.LostWorkS != nil && *o.LostWorkS > 0 {
		parts = append(parts, fmt.Sprintf("first attempts lost: %s of demand", analysis.FormatSeconds(*o.LostWorkS)))
	}
	if o.Abandoned != nil && *o.Abandoned > 0 {
		parts = append(parts, fmt.Sprintf("%s requests served after their client left", num(*o.Abandoned)))
	}
	if o.Refused != nil && *o.Refused > 0 {
		parts = append(parts, fmt.Sprintf("%s attempts refused", num(*o.Refused)))
	}
	if o.FirstFailed != nil && *o.FirstFailed > 0 {
		auth := ""
		if o.FirstAuth != nil {
			auth = fmt.Sprintf(", of the errors credentials refused %s", num(*o.FirstAuth))
		}
		parts = append(parts, fmt.Sprintf("first attempts failed: %s (timed out %s, error status %s, refused %s%s)",
			num(*o.FirstFailed), num(analysis.Value(o.FirstTimedOut)), num(analysis.Value(o.FirstErrors)), num(analysis.Value(o.FirstConnect)), auth))
	}
	if o.WaitSlope != nil && doc.RecoveryS == nil {
		slope := fmt.Sprintf("wait slope %+.3f s/s", *o.WaitSlope)
		if o.WaitSlopeLo != nil && o.WaitSlopeHi != nil {
			slope += fmt.Sprintf(" (95 %% %+.3f to %+.3f)", *o.WaitSlopeLo, *o.WaitSlopeHi)
		}
		parts = append(parts, slope)
	}
	if o.WaitSource != "" && o.WaitDelayS != nil {
		w := fmt.Sprintf("wait from %s, settled %s after the spike", o.WaitSource, analysis.FormatSeconds(*o.WaitDelayS))
		if o.JudgedS != nil {
			w += fmt.Sprintf(", judged %s after it", analysis.FormatSeconds(*o.JudgedS))
		}
		parts = append(parts, w)
	}
	if o.PatienceS != nil && *o.PatienceS < doc.Scenario.TimeoutS {
		parts = append(parts, fmt.Sprintf("patience %s (%s)", analysis.FormatSeconds(*o.PatienceS), o.PatienceFrom))
	}
	return strings.Join(parts, "; ")
}

func recoveryText(doc analysis.Document) string {
	switch {
	case doc.RecoveryS != nil && doc.Verdict == analysis.VerdictMetastable:
		return ": recovery takes " + analysis.FormatSeconds(*doc.RecoveryS) + ", over the budget"
	case doc.RecoveryS != nil && doc.Verdict != analysis.VerdictNoTrigger && doc.Verdict != analysis.VerdictInconclusive:
		return " after " + analysis.FormatSeconds(*doc.RecoveryS)
	case doc.Observation != nil && doc.Observation.ProjectedRecoveryS != nil && doc.Verdict == analysis.VerdictMetastable:
		return " (projected recovery " + analysis.FormatSeconds(*doc.Observation.ProjectedRecoveryS) + ")"
	}
	return ""
}

func gateText(g analysis.GateResult) string {
	var parts []string
	for _, c := range g.Criteria {
		mark := "ok"
		switch {
		case c.NotJudged:
			mark = "not judged"
		case !c.Passed:
			mark = "FAIL"
		}
		parts = append(parts, c.Name+" "+mark)
	}
	head := "passed"
	switch {
	case !g.Passed && g.OnlyNotJudged():
		head = "NOT JUDGED"
	case !g.Passed:
		head = "FAILED"
	}
	s := head + " (" + strings.Join(parts, ", ") + ")"
	notJudged := map[string]bool{}
	for _, c := range g.Criteria {
		if c.NotJudged {
			notJudged[c.Detail] = true
		}
	}
	for _, f := range g.Failures {
		mark := "✗ "
		if notJudged[f] {
			mark = "? "
		}
		s += "\n" + strings.Repeat(" ", 15) + mark + f
	}
	return s
}

func escapeWord(escapes bool) string {
	if escapes {
		return "escapes"
	}
	return "stays trapped"
}

func bandText(b *analysis.CeilingBand) string {
	switch {
	case b == nil:
		return ""
	case b.Empty:
		return fmt.Sprintf("; no safe ceiling (M* ≥ 0.8·N_max = %.1f)", b.TopPods)
	}
	return fmt.Sprintf("; safe ceilings %d–%d", b.LowestPods, b.HighestPods)
}

// num prints a number for people, as the reports do (report.Num): one
// formatter, so a value reads the same in the terminal and in report.html.
func num(x float64) string { return report.Num(x) }

func optNum(p *float64) string {
	if p == nil {
		return "none"
	}
	return num(*p)
}
