package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/trigger-test/trigger/analysis"
)

// WriteCampaignText writes a campaign's cells and what each baseline
// showed, for the terminal (docs/design.md, "trigger campaign").
func WriteCampaignText(w io.Writer, d analysis.CampaignDocument) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Campaign  %s: %s from %g to %g, precision %g %%\n", d.Scenario.Name, d.Search, d.From, d.To, 100*d.Precision)
	fmt.Fprintf(&b, "Model     C = %g/s, patience %gs, A (planned) = %.3g\n\n", d.Scenario.CapacityPerS, d.Scenario.TimeoutS, d.Scenario.AmplificationPlanned)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	odds := d.TrapProbability > 0
	head := "cell\tρ\tλ/s\tspike\theld at\tverdict\tside\trecovery\tA_fail\tfolder"
	if odds {
		head = "cell\tρ\tλ/s\tspike\theld at\tverdict\tside\tP(trap)\tmodel P(trap)\trecovery\tA_fail\tfolder"
	}
	fmt.Fprintln(tw, head)
	for _, c := range d.Cells {
		held := "-"
		if c.HoldDemandPerS != nil {
			held = fmt.Sprintf("%.4g/s", *c.HoldDemandPerS)
		}
		side := sideWord(c.Trapped)
		if odds {
			if c.Side != "" {
				side = c.Side
			}
			side += "\t" + proportionText(c.TrapProbability) + "\t" + proportionText(c.ModelTrapProbability)
		}
		fmt.Fprintf(tw, "%d\t%.3g\t%.4g\t×%.4g for %gs\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Index, c.Rho, c.DemandPerS, c.Multiplier, c.SpikeS, held,
			c.Verdict, side, cellRecovery(c), orDash(c.AFail, "%.2f"), c.Folder)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n")
	unit := searchUnit(d.Search)
	for _, bl := range d.Baselines {
		fmt.Fprintf(&b, "ρ = %.3g (%.4g/s): ", bl.Rho, bl.DemandPerS)
		switch {
		case bl.SmallestTrap == nil && strings.HasPrefix(bl.SearchEnd, string(analysis.BracketNoneUpTo)):
			fmt.Fprintf(&b, "no %s up to %g%s trapped", d.Search, d.To, unit)
		case bl.SmallestTrap == nil:
			fmt.Fprintf(&b, "smallest trap not measured (%s)", bl.SearchEnd)
		case bl.SmallestTrapLo == nil:
			fmt.Fprintf(&b, "smallest trap ≤ %.4g%s (the first size trapped)", *bl.SmallestTrapHi, unit)
		default:
			fmt.Fprintf(&b, "smallest trap in (%.4g, %.4g]%s", *bl.SmallestTrapLo, *bl.SmallestTrapHi, unit)
		}
		if bl.ModelSmallestTrap == nil {
			b.WriteString("; model: none traps (A·ρ < 1)")
		} else {
			fmt.Fprintf(&b, "; model %.4g%s", *bl.ModelSmallestTrap, unit)
		}
		if bl.MeasuredModelSmallestTrap != nil {
			fmt.Fprintf(&b, " (%.4g%s with the measured A_fail %.3g)", *bl.MeasuredModelSmallestTrap, unit, analysis.Value(bl.AFail))
		}
		if bl.RecoveryDemandPerS != nil {
			fmt.Fprintf(&b, "\n    recovers at λ_r ≥ %.4g/s, stays failed at %s; model C/A = %s", *bl.RecoveryDemandPerS,
				orDash(bl.RecoveryDemandPerSHi, "%.4g/s"), orDash(bl.ModelRecoveryDemandPerS, "%.4g/s"))
		}
		if o := bl.Odds; o != nil {
			fmt.Fprintf(&b, "\n    P(trap) = %g at %s over %d trials in %d cells; model %s", o.Level, oddsBoundary(o, unit), o.Trials, o.Cells, modelBoundary(o, unit))
			switch {
			case o.Fit == nil && o.FitNote != "":
				fmt.Fprintf(&b, "\n    no tipping curve fitted: %s", o.FitNote)
			case o.FitNote != "":
				fmt.Fprintf(&b, "\n    tipping curve: %s", o.FitNote)
			}
		}
		if bl.TriggerMargin != nil {
			fmt.Fprintf(&b, "\n    survives %.3g× expected_spike", *bl.TriggerMargin)
		}
		if bl.Note != "" {
			fmt.Fprintf(&b, "\n    %s", bl.Note)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nStopped   %s\n", d.StoppedReason)
	if g := d.Gate; g != nil {
		if g.Passed {
			fmt.Fprintf(&b, "Gate      passed (min_trigger_margin %g)\n", g.MinTriggerMargin)
		} else {
			fmt.Fprintf(&b, "Gate      FAILED: %s\n", strings.Join(g.Failures, "; "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellRecovery is a cell's recovery time, or its projection (~) when the
// run ended still recovering.
func cellRecovery(c analysis.CampaignCell) string {
	if c.RecoveryS == nil && c.ProjectedRecoveryS != nil {
		return fmt.Sprintf("~%.0f s", *c.ProjectedRecoveryS)
	}
	return orDash(c.RecoveryS, "%.1f s")
}

// searchUnit is the unit a search's sizes are written with.
func searchUnit(search string) string {
	switch search {
	case "duration":
		return "s"
	case "capacity":
		return " of C lost"
	}
	return "×"
}

func sideWord(t *bool) string {
	switch {
	case t == nil:
		return "could not tell"
	case *t:
		return "trapped"
	}
	return "recovered"
}

func orDash(x *float64, format string) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf(format, *x)
}

// proportionText is k/n, P and its interval: "1/3 0.33 (0.06–0.79)"; "-"
// for none.
func proportionText(p *analysis.Proportion) string {
	if p == nil || p.Of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d %.2f (%.2f–%.2f)", p.Count, p.Of, p.P, p.Lo, p.Hi)
}

// oddsBoundary is the boundary at the level with its interval and source:
// "2.71× (95 %: 2.6–2.85, fit)".
func oddsBoundary(o *analysis.CampaignOdds, unit string) string {
	switch {
	case o == nil:
		return "-"
	case o.Boundary == nil:
		return fmt.Sprintf("not bracketed (above %s)", orDash(o.BoundaryLo, "%.4g"+unit))
	}
	what := "95 %"
	if o.Source == analysis.BoundaryFromCell || o.Source == analysis.BoundaryFromBracket {
		what = "between"
	}
	return fmt.Sprintf("%.4g%s (%s: %s–%s, %s)", *o.Boundary, unit, what, orDash(o.BoundaryLo, "%.4g"), orDash(o.BoundaryHi, "%.4g"), o.Source)
}

// modelBoundary is the model's boundary at the level, or why there is none.
func modelBoundary(o *analysis.CampaignOdds, unit string) string {
	switch {
	case o == nil:
		return "-"
	case o.ModelBoundary == nil && o.ModelNote != "":
		return o.ModelNote
	}
	return orDash(o.ModelBoundary, "%.4g"+unit)
}
