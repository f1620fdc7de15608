package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// unknown is how the reports show a value the document does not have.
const unknown = "–"

// Num formats a number for people, in the reports and on the terminal: three significant digits or so,
// trailing zeros dropped ("3", "2.99", "0.248", "1250"); from 10¹⁵ on in
// scientific notation ("2.5e+300"), not as hundreds of digits.
func Num(x float64) string {
	if math.IsNaN(x) {
		return unknown
	}
	if math.IsInf(x, 1) {
		return "∞"
	}
	if math.IsInf(x, -1) {
		return "−∞"
	}
	a := math.Abs(x)
	var s string
	switch {
	case a >= 1e15:
		return strconv.FormatFloat(x, 'g', 3, 64)
	case a >= 100:
		s = strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		s = strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 0.01 || a == 0:
		s = strconv.FormatFloat(x, 'f', 2, 64)
	default:
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func num(x float64) string { return Num(x) }

// numPtr formats a nullable number of the result document.
func numPtr(p *float64) string { return num(analysis.Value(p)) }

// secPtr formats a nullable duration in seconds ("67.3 s", "4 min 12 s").
func secPtr(p *float64) string {
	if p == nil {
		return unknown
	}
	return analysis.FormatSeconds(*p)
}

// withUnit formats an estimate's value in its unit: seconds as durations,
// rates with "/s".
func withUnit(p *float64, unit string) string {
	if p == nil {
		return unknown
	}
	switch unit {
	case "s":
		if *p < 0 {
			return num(*p) + " s"
		}
		return analysis.FormatSeconds(*p)
	case "1/s":
		return num(*p) + "/s"
	case "":
		return num(*p)
	}
	return num(*p) + " " + unit
}

// withInterval formats an estimate's value in its unit with its 95 %
// interval when both ends are known: "9.02 (8.91–9.13)", "55.0 s (51.2 s–58.9 s)";
// " to " separates ends when one is negative, "−0.29 s/s to −0.23 s/s".
func withInterval(p, lo, hi *float64, unit string) string {
	s := withUnit(p, unit)
	if p == nil || lo == nil || hi == nil {
		return s
	}
	sep := "–"
	if *lo < 0 || *hi < 0 {
		sep = " to "
	}
	return s + " (" + withUnit(lo, unit) + sep + withUnit(hi, unit) + ")"
}

// shortSeconds formats a duration that may be under a second: "300 ms",
// else as analysis.FormatSeconds does ("1.0 s", "4 min 12 s").
func shortSeconds(s float64) string {
	if s > 0 && s < 1 {
		return strconv.FormatFloat(math.Round(s*1000), 'f', -1, 64) + " ms"
	}
	return analysis.FormatSeconds(s)
}

// recoveryMeasured is the measured recovery in words: the time, the
// projection of a service still recovering, or never.
func recoveryMeasured(doc analysis.Document) string {
	switch {
	case doc.RecoveryS != nil:
		return analysis.FormatSeconds(*doc.RecoveryS)
	case doc.Verdict == analysis.VerdictMetastable && doc.Observation != nil && doc.Observation.ProjectedRecoveryS != nil:
		return "not yet; projected " + analysis.FormatSeconds(*doc.Observation.ProjectedRecoveryS)
	case doc.Verdict == analysis.VerdictTrapped:
		return "never (trapped)"
	case doc.Verdict == analysis.VerdictMetastable:
		return "not within the observation"
	}
	return unknown
}

// recoveryPredicted is the closed form's recovery time in words.
func recoveryPredicted(doc analysis.Document) string {
	p := doc.Prediction
	switch {
	case p.RecoveryS != nil && doc.Verdict == analysis.VerdictTrapped && !math.IsInf(*p.RecoveryS, 0):
		// The plan's queue would have drained; this service did not (a
		// finding says why): the figure is the plan's, not a prediction
		// that stands.
		return analysis.FormatSeconds(*p.RecoveryS) + " (the plan's model, which this service departed from)"
	case p.RecoveryS != nil:
		return analysis.FormatSeconds(*p.RecoveryS)
	case p.Verdict == analysis.VerdictTrapped:
		return "never (trapped)"
	case p.Verdict == analysis.VerdictNoTrigger:
		return "no trigger"
	}
	return unknown
}

// aFailMeasured is A_fail as measured, with its interval; when it is not
// a measurement, the bound the counters gave ("≥ 2.51, not a
// measurement") or unknown.
func aFailMeasured(a analysis.AmplificationSection) string {
	switch {
	case a.Measured != nil:
		return withInterval(a.Measured, a.MeasuredLo, a.MeasuredHi, "")
	case a.MeasuredAtLeast != nil:
		return "≥ " + num(*a.MeasuredAtLeast) + ", not a measurement"
	case a.MeasuredAtMost != nil:
		return "< " + num(*a.MeasuredAtMost) + ", not a measurement"
	case a.MeasuredNote != "":
		return "not measured"
	}
	return unknown
}

// standingText is the A a run stands by, with its interval and source:
// "3.07 (2.59–3.55), A from the wait's slope".
func standingText(a analysis.AmplificationSection) string {
	st := a.Standing
	if st == nil {
		return unknown
	}
	v := st.Value
	return withInterval(&v, st.Lo, st.Hi, "") + ", " + st.From
}

// predictedHidden is the hidden factor the plan expects: the layers the
// scenario declares beyond the client, A_predicted / A_client.
func predictedHidden(doc analysis.Document) float64 {
	if doc.Amplification.Client <= 0 {
		return math.NaN()
	}
	return doc.Amplification.Predicted / doc.Amplification.Client
}

// workLost is the first attempts that failed, in seconds of demand, and
// the logical requests that gave up.
func workLost(obs *analysis.Observation) string {
	if obs == nil || (obs.LostWorkS == nil && obs.FailedRequests == nil) {
		return unknown
	}
	var parts []string
	if obs.LostWorkS != nil {
		parts = append(parts, analysis.FormatSeconds(*obs.LostWorkS)+" of demand")
	}
	if obs.FailedRequests != nil {
		parts = append(parts, num(*obs.FailedRequests)+" requests failed")
	}
	return strings.Join(parts, ", ")
}

// kindTitle names what produced the document when it is not a run.
func kindTitle(doc analysis.Document) string {
	switch doc.Kind {
	case "", "run":
		return "Trigger test"
	case "simulate":
		if doc.Model != "" {
			return "Model (" + doc.Model + ")"
		}
		return "Model"
	case "plan":
		return "Plan"
	}
	return doc.Kind
}

// scenarioName is the scenario's name, or a stand-in when it has none.
func scenarioName(doc analysis.Document) string {
	if doc.Scenario.Name == "" {
		return "unnamed scenario"
	}
	return doc.Scenario.Name
}

// notices are the warnings a reader must see before the numbers: an
// interrupted or inconclusive run, an on_trap action that failed.
func notices(doc analysis.Document) []string {
	obs := doc.Observation
	if obs == nil {
		return nil
	}
	var out []string
	if obs.Interrupted {
		out = append(out, "The run was interrupted: what follows is what was measured until then.")
	}
	if obs.Inconclusive != "" {
		out = append(out, "Inconclusive: "+obs.Inconclusive)
	}
	if obs.OnTrap != nil && obs.OnTrap.Error != "" {
		out = append(out, "The on_trap action failed: "+obs.OnTrap.Error)
	}
	if f := obs.Fault; f != nil && !f.Restored {
		out = append(out, "THE FAULT MAY STILL BE IN PLACE: "+f.Error)
	}
	return out
}

// onTrapText says what the on_trap action did, "" when none ran.
func onTrapText(doc analysis.Document) string {
	ot := obsOnTrap(doc)
	if ot == nil {
		return ""
	}
	s := "on_trap " + ot.Action + " started " + analysis.FormatSeconds(ot.AtS) + " after the spike ended; "
	if ot.RecoveryS != nil {
		return s + "the service was back " + analysis.FormatSeconds(*ot.RecoveryS) + " later"
	}
	return s + "the service was not back within on_trap's observation"
}

// verdictHeadline is the verdict in a few words, with the recovery time
// against the prediction.
func verdictHeadline(doc analysis.Document) string {
	pred := ""
	if doc.Prediction.RecoveryS != nil {
		pred = " (predicted " + analysis.FormatSeconds(*doc.Prediction.RecoveryS) + ")"
	}
	switch doc.Verdict {
	case analysis.VerdictRecovered:
		if doc.RecoveryS != nil {
			return "recovered after " + analysis.FormatSeconds(*doc.RecoveryS) + pred
		}
		return "recovered" + pred
	case analysis.VerdictMetastable:
		if doc.Observation != nil && doc.Observation.ProjectedRecoveryS != nil {
			return "metastable, projected recovery " + analysis.FormatSeconds(*doc.Observation.ProjectedRecoveryS) + pred
		}
		return "metastable" + pred
	case analysis.VerdictTrapped:
		if o := doc.Observation; o != nil && o.JudgedS != nil {
			return "trapped (judged " + analysis.FormatSeconds(*o.JudgedS) + " after the spike)"
		}
		if ot := obsOnTrap(doc); ot != nil {
			return "trapped (judged " + analysis.FormatSeconds(ot.AtS) + " after the spike)"
		}
		return "trapped"
	case analysis.VerdictNoTrigger:
		return "no trigger (inconclusive)"
	case analysis.VerdictInconclusive:
		if o := doc.Observation; o != nil && o.VerdictReason != "" {
			return "inconclusive: " + o.VerdictReason
		}
		return "inconclusive"
	case "":
		return "no verdict"
	}
	return string(doc.Verdict)
}

// requestTableHeader and requestTable are the reports' table of a mix's
// requests: each one's share of first attempts (expected, got), its first
// attempts, their success ratio and their failures by class; nil for a
// single request.
var requestTableHeader = []string{"request", "share (expected)", "first attempts", "first ok", "failed: timeout", "error (4xx of them)", "connect", "other"}

func requestTable(obs *analysis.Observation) [][]string {
	if obs == nil || len(obs.Requests) < 2 {
		return nil
	}
	var out [][]string
	for _, q := range obs.Requests {
		ok := "–"
		if !math.IsNaN(q.SuccessRatio) {
			ok = fmt.Sprintf("%.1f %%", 100*q.SuccessRatio)
		}
		out = append(out, []string{q.Name,
			fmt.Sprintf("%.1f %% (%.1f %%)", 100*q.Share, 100*q.ExpectedShare),
			num(q.FirstSent), ok, num(q.FirstTimeouts),
			fmt.Sprintf("%s (%s)", num(q.FirstErrors), num(q.FirstClientErrors)),
			num(q.FirstConnect), num(q.FirstOther)})
	}
	return out
}

// latencySeconds formats a latency percentile of the result (seconds,
// three significant digits) without losing digits: in milliseconds below
// a second ("12 ms", "0.42 ms"), else in seconds ("1.02 s"), as the
// terminal shows it; unknown when null. shortSeconds would round a
// loopback service's sub-millisecond latency to "0 ms".
func latencySeconds(p *float64) string {
	if p == nil {
		return unknown
	}
	if *p < 1 {
		return num(1000**p) + " ms"
	}
	return num(*p) + " s"
}
