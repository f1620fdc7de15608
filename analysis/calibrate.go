package analysis

import (
	"fmt"
	"math"
)

// Calibration is what a model took from a recorded run in place of the
// scenario's beliefs (trigger simulate --from): each figure the run
// measured, and a note for each it could not.
type Calibration struct {
	// CapacityPerS is C, DemandPerS λ, as the run measured them; NaN when
	// the scenario's are kept.
	CapacityPerS, DemandPerS float64
	// Hidden is the retry factor of layers the clients do not know,
	// A_fail over the clients' own; NaN when the scenario's layers are kept.
	Hidden float64
	// PatienceS is a patience shorter than τ_out the run measured (a layer
	// that gives up first); NaN when none.
	PatienceS float64
	// Notes say what was kept from the scenario, and why.
	Notes []string
}

// Bounds on what Calibrate takes from a run's document, which is a file
// from anywhere: a rate or factor past them is kept out, with a note
// (the scenario's own bounds: capacity 1e7/s, 1,000 retries).
const (
	MaxCalibratedRatePerS = 1e7
	MaxCalibratedHidden   = 1000
)

// CalibrateKeep names the figures a what-if sets itself, which the run's
// measurements must not replace.
type CalibrateKeep struct {
	Capacity, Demand, Layers, Patience bool
}

// Calibrate returns in with the run's measured C, λ, hidden retry factor
// and patience in place of the scenario's (docs/model.md, "Mapping the
// boundary", a model calibrated from a run): the clients' own layer stays
// as the scenario declares it, and every other layer becomes one layer of
// the measured hidden factor. What the run did not measure, or keep says
// the what-if sets, stays as the scenario has it, with a note.
func Calibrate(in PlanInputs, run Document, keep CalibrateKeep) (PlanInputs, Calibration) {
	nan := math.NaN()
	c := Calibration{CapacityPerS: nan, DemandPerS: nan, Hidden: nan, PatienceS: nan}
	o := run.Observation
	if o == nil {
		c.Notes = append(c.Notes, "the run has no observation: the scenario's figures are kept")
		return in, c
	}
	switch x := Value(o.CapacityPerS); {
	case keep.Capacity:
		c.Notes = append(c.Notes, "C: the what-if's")
	case !finite(x) || x <= 0 || o.CapacitySource == "" || o.CapacitySource == "scenario":
		c.Notes = append(c.Notes, "C: the scenario's (the run did not measure it)")
	case x > MaxCalibratedRatePerS:
		c.Notes = append(c.Notes, fmt.Sprintf("C: the scenario's (the run's %.3g/s is past any real service's)", x))
	default:
		in.Scenario.CapacityPerS, c.CapacityPerS = x, x
	}
	switch x := Value(o.BaselinePerS); {
	case keep.Demand:
		c.Notes = append(c.Notes, "λ: the what-if's")
	case !finite(x) || x <= 0:
		c.Notes = append(c.Notes, "λ: the scenario's (the run did not measure it)")
	case x > MaxCalibratedRatePerS:
		c.Notes = append(c.Notes, fmt.Sprintf("λ: the scenario's (the run's %.3g/s is past any real load's)", x))
	default:
		in.Scenario.DemandPerS, c.DemandPerS = x, x
	}
	patience := Value(o.PatienceS)
	if keep.Patience || !(finite(patience) && patience > 0 && patience < in.Scenario.TimeoutS) {
		patience = nan
	}
	switch h := Value(run.Amplification.Hidden); {
	case keep.Layers:
		c.Notes = append(c.Notes, "retry layers: the what-if's")
	case !finite(h) || h < 1 || len(in.Layers) == 0:
		c.Notes = append(c.Notes, "retry layers: the scenario's (the run did not measure A_fail"+hiddenWhy(run)+")")
	case h > MaxCalibratedHidden:
		c.Notes = append(c.Notes, fmt.Sprintf("retry layers: the scenario's (a hidden factor of %.3g is no measurement)", h))
	default:
		hidden := RetryLayer{Name: "hidden (measured)", MaxRetries: int(math.Ceil(h)), HasBudget: true, Budget: h - 1}
		if finite(patience) {
			hidden.TimeoutS, c.PatienceS = patience, patience
		}
		in.Layers = append([]RetryLayer{in.Layers[0]}, hidden)
		c.Hidden = h
	}
	if finite(patience) && !finite(c.PatienceS) {
		c.Notes = append(c.Notes, fmt.Sprintf("patience: the run measured %s, applied only with a measured hidden layer; the scenario's layers keep theirs", FormatSeconds(patience)))
	}
	return in, c
}

func hiddenWhy(d Document) string {
	if d.Amplification.HiddenNote != "" {
		return ": " + d.Amplification.HiddenNote
	}
	return ""
}

// String is the calibration in one line.
func (c Calibration) String() string {
	s := ""
	add := func(format string, args ...any) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf(format, args...)
	}
	if finite(c.CapacityPerS) {
		add("C = %.4g/s", c.CapacityPerS)
	}
	if finite(c.DemandPerS) {
		add("λ = %.4g/s", c.DemandPerS)
	}
	if finite(c.Hidden) {
		add("hidden retries ×%.3g", c.Hidden)
	}
	if finite(c.PatienceS) {
		add("patience %s", FormatSeconds(c.PatienceS))
	}
	if s == "" {
		s = "nothing measured"
	}
	return s
}
