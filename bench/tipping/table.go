package main

import (
	"fmt"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
)

// tableHead heads the rows point.row prints.
const tableHead = "load/λ_c  specimen P(collapse) [95 %]   model P(collapse) [95 %]     model in  published  in interval  median collapse  void  L₀"

// header names a curve's setup.
func (c curve) header() string {
	s := c.Setup
	return fmt.Sprintf("θ = %g (%s): μ = %g/s, T = %v (+ L₀), R = %d attempts, backoff %g service times (%v), horizon %g service times (%v), collapsed: wait past %g timeouts (queue ≥ %d); λ_c = %.3g/s",
		s.Theta, c.Name, s.Mu, s.times(s.Theta), s.Attempts, s.Backoff, s.times(s.Backoff), s.Horizon, s.times(s.Horizon).Round(time.Millisecond), s.CollapseWait, s.collapseDepth(), s.lambdaC())
}

// row is one line of the table.
func (p point) row() string {
	pub, in := "—", "—"
	if !math.IsNaN(p.Published) {
		pub, in = fmt.Sprintf("%.2f", p.Published), yesNo(p.Holds())
	}
	at := "—"
	if !math.IsNaN(p.MedianAtS) {
		at = fmt.Sprintf("%.2f s", p.MedianAtS)
	}
	return fmt.Sprintf("%8.2f  %-27s  %-27s  %8s  %9s  %11s  %15s  %4d  %.2f ms",
		p.Fraction, prop(p.Measured), prop(p.Model), yesNo(p.ModelHolds()), pub, in, at, p.Void, float64(p.Floor)/1e6)
}

// yesNo says whether a point lies in the measured interval.
func yesNo(in bool) string {
	if in {
		return "yes"
	}
	return "NO"
}

// prop prints k/n, the estimate and its Wilson interval.
func prop(p analysis.Proportion) string {
	return fmt.Sprintf("%d/%d %.2f [%.2f, %.2f]", p.Count, p.Of, p.P, p.Lo, p.Hi)
}
