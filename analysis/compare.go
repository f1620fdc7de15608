package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Comparing a candidate run with a baseline run of the same test (`trigger
// compare`, docs/design.md, "Comparing releases"): the verdicts, and each
// figure with both runs' intervals and the difference. A difference is a
// regression only when the intervals do not overlap (the candidate's
// lower bound above the baseline's upper bound: not noise) and it exceeds
// its threshold; a figure without a threshold is shown, never gated.

// CompareThresholds are the relative increases past which a figure that
// the intervals say grew is a regression.
type CompareThresholds struct {
	// MaxRecoveryRegression is the largest relative increase of the
	// recovery time allowed (0.2: 20 %).
	MaxRecoveryRegression float64
	// MaxAmplificationRegression is the largest relative increase of A_fail
	// and of the hidden factor allowed (0.1: 10 %).
	MaxAmplificationRegression float64
}

// DefaultCompareThresholds are `trigger compare`'s defaults.
var DefaultCompareThresholds = CompareThresholds{MaxRecoveryRegression: 0.2, MaxAmplificationRegression: 0.1}

// Comparison is a candidate run against a baseline run.
type Comparison struct {
	// Comparable is false when the two runs are not of the same test (a
	// different scenario, target or load) or one could not judge its
	// service; NotComparable says which.
	Comparable    bool     `json:"comparable"`
	NotComparable []string `json:"not_comparable,omitempty"`
	BaseVerdict   Verdict  `json:"base_verdict"`
	Verdict       Verdict  `json:"verdict"`
	// VerdictRegressed: the candidate's verdict is worse (recovered, then
	// metastable, then trapped).
	VerdictRegressed bool              `json:"verdict_regressed"`
	Figures          []ComparedFigure  `json:"figures"`
	Thresholds       CompareThresholds `json:"thresholds"`
	// Regressed: the verdict or a gated figure regressed.
	Regressed bool `json:"regressed"`
}

// ComparedFigure is one figure of both runs. Values are null when a run
// did not measure it; an interval bound is null when the run gives none.
type ComparedFigure struct {
	Name   string   `json:"name"`
	Label  string   `json:"label"`
	Unit   string   `json:"unit"`
	Base   *float64 `json:"base"`
	BaseLo *float64 `json:"base_lo"`
	BaseHi *float64 `json:"base_hi"`
	Cand   *float64 `json:"candidate"`
	CandLo *float64 `json:"candidate_lo"`
	CandHi *float64 `json:"candidate_hi"`
	// Diff is Cand − Base; Rel is Diff / Base (null when Base is 0 or a
	// value is missing).
	Diff *float64 `json:"diff"`
	Rel  *float64 `json:"rel"`
	// Threshold is the relative increase past which the figure regresses;
	// null for a figure that is shown and not gated.
	Threshold *float64 `json:"threshold"`
	// Beyond says the intervals do not overlap and the candidate's is
	// above; Regressed that it also exceeds the threshold. Note says why
	// when the figure is not gated or not measured.
	Beyond    bool   `json:"beyond_noise"`
	Regressed bool   `json:"regressed"`
	Note      string `json:"note,omitempty"`
}

// verdictRank orders the judged verdicts from best to worst; other
// verdicts are not comparable.
var verdictRank = map[Verdict]int{VerdictRecovered: 0, VerdictMetastable: 1, VerdictTrapped: 2}

// Compare compares the candidate run cand with the baseline run base.
func Compare(base, cand Document, th CompareThresholds) Comparison {
	c := Comparison{Comparable: true, BaseVerdict: base.Verdict, Verdict: cand.Verdict, Thresholds: th}
	for _, why := range notComparable(base, cand) {
		c.Comparable = false
		c.NotComparable = append(c.NotComparable, why)
	}
	rb, okb := verdictRank[base.Verdict]
	rc, okc := verdictRank[cand.Verdict]
	c.VerdictRegressed = okb && okc && rc > rb

	rec := func(d Document) (v, lo, hi *float64) {
		if d.RecoveryS == nil {
			return nil, nil, nil
		}
		// A run finds its recovery to the second (its rows are a second
		// wide): the interval is one row either side.
		r := *d.RecoveryS
		return Num(r), Num(math.Max(0, r-1)), Num(r + 1)
	}
	amp := func(d Document) (v, lo, hi *float64) {
		a := d.Amplification
		return a.Measured, a.MeasuredLo, a.MeasuredHi
	}
	hidden := func(d Document) (v, lo, hi *float64) {
		a := d.Amplification
		if a.Hidden == nil || a.Measured == nil || a.MeasuredLo == nil || a.MeasuredHi == nil || *a.Measured <= 0 {
			return a.Hidden, nil, nil
		}
		// The hidden factor is A_fail over the clients' A: its interval is
		// A_fail's, scaled.
		s := *a.Hidden / *a.Measured
		return a.Hidden, Num(*a.MeasuredLo * s), Num(*a.MeasuredHi * s)
	}
	obs := func(f func(o *Observation) *float64) func(d Document) (v, lo, hi *float64) {
		return func(d Document) (v, lo, hi *float64) {
			if d.Observation == nil {
				return nil, nil, nil
			}
			return f(d.Observation), nil, nil
		}
	}
	figs := []struct {
		name, label, unit string
		get               func(Document) (v, lo, hi *float64)
		threshold         float64 // 0: not gated
	}{
		{"recovery_s", "Recovery after the trigger", "s", rec, th.MaxRecoveryRegression},
		{"amplification_fail", "A_fail (attempts at the service per first attempt)", "", amp, th.MaxAmplificationRegression},
		{"hidden_factor", "Hidden factor A_fail / A_client", "", hidden, th.MaxAmplificationRegression},
		{"peak_wait_s", "Peak wait", "s", obs(func(o *Observation) *float64 { return o.PeakWaitS }), 0},
		{"lost_work_s", "First attempts lost, seconds of demand", "s", obs(func(o *Observation) *float64 { return o.LostWorkS }), 0},
		{"failed_requests", "Requests failed (every attempt)", "", obs(func(o *Observation) *float64 { return o.FailedRequests }), 0},
	}
	for _, f := range figs {
		cf := ComparedFigure{Name: f.name, Label: f.label, Unit: f.unit}
		cf.Base, cf.BaseLo, cf.BaseHi = f.get(base)
		cf.Cand, cf.CandLo, cf.CandHi = f.get(cand)
		if f.threshold > 0 {
			cf.Threshold = Num(f.threshold)
		}
		compareFigure(&cf)
		if f.name == "recovery_s" {
			recoveryNote(&cf, base, cand)
		}
		c.Figures = append(c.Figures, cf)
	}
	c.Regressed = c.Comparable && c.VerdictRegressed
	for _, f := range c.Figures {
		c.Regressed = c.Regressed || c.Comparable && f.Regressed
	}
	return c
}

// compareFigure fills the difference and decides the regression.
func compareFigure(f *ComparedFigure) {
	if f.Base == nil || f.Cand == nil {
		if f.Note == "" {
			switch {
			case f.Base == nil && f.Cand == nil:
				f.Note = "not measured in either run"
			case f.Base == nil:
				f.Note = "not measured in the baseline"
			default:
				f.Note = "not measured in the candidate"
			}
		}
		return
	}
	d := *f.Cand - *f.Base
	f.Diff = Num(d)
	if *f.Base != 0 {
		f.Rel = Num(d / math.Abs(*f.Base))
	}
	if f.Threshold == nil {
		f.Note = "shown, not gated"
		return
	}
	lo, hi := f.CandLo, f.BaseHi
	if lo == nil || hi == nil {
		f.Note = "no interval in both runs: not gated"
		return
	}
	f.Beyond = *lo > *hi
	f.Regressed = f.Beyond && f.Rel != nil && *f.Rel > *f.Threshold
}

// recoveryNote says what the recovery's figure means when a run did not
// recover: the verdict carries the regression then.
func recoveryNote(f *ComparedFigure, base, cand Document) {
	switch {
	case base.RecoveryS != nil && cand.RecoveryS == nil:
		f.Note = "the candidate did not recover (" + string(cand.Verdict) + "): see the verdict"
	case base.RecoveryS == nil && cand.RecoveryS != nil:
		f.Note = "the baseline did not recover (" + string(base.Verdict) + ")"
	case base.RecoveryS == nil && cand.RecoveryS == nil:
		f.Note = "not measured in either run: neither recovered (" + string(base.Verdict) + ", " + string(cand.Verdict) + ")"
	}
}

// notComparable lists why two runs are not runs of the same test.
func notComparable(base, cand Document) []string {
	var out []string
	b, c := base.Scenario, cand.Scenario
	if b.Hash != "" && c.Hash != "" && b.Hash != c.Hash {
		out = append(out, fmt.Sprintf("different scenarios: %s (%s) against %s (%s)", nameOr(b), b.Hash, nameOr(c), c.Hash))
	} else if b.Name != c.Name {
		out = append(out, fmt.Sprintf("different scenarios: %q against %q", b.Name, c.Name))
	}
	if b.Target != "" && c.Target != "" && b.Target != c.Target {
		out = append(out, fmt.Sprintf("different targets: %s against %s", b.Target, c.Target))
	}
	for _, p := range []struct {
		what string
		x, y float64
	}{
		{"baseline λ", b.DemandPerS, c.DemandPerS}, {"spike multiple k", b.Multiplier, c.Multiplier},
		{"spike length Δ", b.SpikeS, c.SpikeS}, {"client timeout τ_out", b.TimeoutS, c.TimeoutS},
	} {
		if math.Abs(p.x-p.y) > 1e-9*math.Max(math.Abs(p.x), math.Abs(p.y)) {
			out = append(out, fmt.Sprintf("different load: %s %g against %g", p.what, p.x, p.y))
		}
	}
	for _, d := range []struct {
		who string
		doc Document
	}{{"the baseline", base}, {"the candidate", cand}} {
		if _, ok := verdictRank[d.doc.Verdict]; !ok {
			out = append(out, fmt.Sprintf("%s is %s: no judged verdict to compare", d.who, d.doc.Verdict))
		}
	}
	return out
}

func nameOr(s ScenarioSection) string {
	if s.File != "" {
		return s.File
	}
	return strings.TrimSpace(s.Name)
}
