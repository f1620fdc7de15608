package fieldtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// TableHeader names the columns of Row.
const TableHeader = "| case | signals | verdict (want) | judged after spike | wait delay | A_fail (truth) | hidden (truth) | A from slope | recovery (formula) | law | held by | problems |\n|---|---|---|---|---|---|---|---|---|---|---|---|"

// Row is the outcome as one Markdown table row.
func (o Outcome) Row() string {
	cell := func(format string, x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return fmt.Sprintf(format, x)
	}
	verdict := fmt.Sprintf("%s (%s)", o.Verdict(), o.wanted())
	judged, delay, afail, hidden, slope, recovery := "—", "—", "—", "—", "—", "—"
	if o.Result != nil {
		d := o.Result.Document
		obs := d.Observation
		judged = cell("%.0f s", analysis.Value(obs.JudgedS))
		delay = cell("%.0f s", analysis.Value(obs.WaitDelayS))
		if obs.WaitSource != "" {
			delay += " (" + string(obs.WaitSource) + ")"
		}
		amp := d.Amplification
		afail = cell("%.2f", analysis.Value(amp.Measured))
		switch {
		case amp.MeasuredLo != nil:
			afail += fmt.Sprintf(" [%.2f, %.2f]", *amp.MeasuredLo, *amp.MeasuredHi)
		case amp.MeasuredAtLeast != nil:
			afail = fmt.Sprintf("null, ≥ %.2f", *amp.MeasuredAtLeast)
		case amp.MeasuredAtMost != nil:
			afail = fmt.Sprintf("null, < %.2f", *amp.MeasuredAtMost)
		case amp.Measured == nil && amp.MeasuredNote != "":
			afail = "null"
		}
		if !math.IsNaN(o.TruthAFail) {
			afail += fmt.Sprintf(" (%.2f)", o.TruthAFail)
		}
		if h := analysis.Value(d.Amplification.Hidden); !math.IsNaN(h) {
			hidden = cell("%.2f", h) + cell(" (%.2f)", o.TruthHidden)
		}
		slope = cell("%.2f", analysis.Value(obs.AmplificationFromSlope))
		if rec := analysis.Value(d.RecoveryS); !math.IsNaN(rec) {
			recovery = cell("%.0f s", rec) + cell(" (%.0f s)", analysis.Value(obs.PredictedRecoveryS))
		}
	}
	law, held := "—", "—"
	if o.Result != nil {
		d := o.Result.Document
		if l := d.LatencyLaw; l != nil {
			law = fmt.Sprintf("%s, L₀ %.0f ms (%s)", l.Kind, 1000*l.FloorS, l.Source)
		}
		if s := d.Observation.SustainedBy; s != nil {
			held = string(s.Effect)
		}
	}
	problems := strings.Join(o.Problems(), "; ")
	if problems == "" {
		problems = "none"
	}
	if known := o.KnownProblems(); len(known) > 0 {
		problems += "; known wrong: " + strings.Join(known, "; ")
	}
	name := o.Case.Name
	if o.Case.Hold > 0 {
		name += fmt.Sprintf(" (hold %.0f s)", o.Case.Hold.Seconds())
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", name, o.Signals.Name, verdict, judged, delay, afail, hidden, slope, recovery, law, held, problems)
}
