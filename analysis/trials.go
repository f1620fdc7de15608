package analysis

import (
	"math"
	"slices"
)

// z95 is the standard normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Proportion is k of n trials with a property, its estimate k/n and the
// Wilson score interval at 95 % (docs/model.md, "Trap probability").
type Proportion struct {
	Count int     `json:"count"`
	Of    int     `json:"of"`
	P     float64 `json:"p"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// NewProportion is k of n with its Wilson interval; n = 0 gives P = NaN
// and the interval [0, 1] (nothing is known).
func NewProportion(k, n int) Proportion {
	lo, hi := Wilson(k, n, z95)
	p := math.NaN()
	if n > 0 {
		p = float64(k) / float64(n)
	}
	return Proportion{Count: k, Of: n, P: p, Lo: lo, Hi: hi}
}

// Wilson is the Wilson score interval of k successes in n trials at the
// normal quantile z: centre (k + z²/2)/(n + z²), half-width
// z·√(k(n−k)/n + z²/4)/(n + z²). Unlike k/n ± z·√(p(1−p)/n) it stays
// inside [0, 1] and is not empty at k = 0 or k = n, where a few trials
// matter most. n = 0 gives [0, 1].
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	k = min(max(k, 0), n)
	nf, kf, z2 := float64(n), float64(k), z*z
	centre := (kf + z2/2) / (nf + z2)
	half := z * math.Sqrt(kf*(nf-kf)/nf+z2/4) / (nf + z2)
	lo, hi = math.Max(0, centre-half), math.Min(1, centre+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// CleanTrialsFor is the fewest trials, none trapped, whose Wilson 95 %
// upper bound is at most p: what a gate `max_trap_probability = p` needs
// before it can pass (for 0 of n the bound is z²/(n + z²), so
// n ≥ z²(1 − p)/p: 73 trials for p = 0.05, 35 for 0.1). p ≥ 1 needs 0;
// p ≤ 0 can never pass (-1).
func CleanTrialsFor(p float64) int {
	switch {
	case p >= 1:
		return 0
	case !(p > 0):
		return -1
	}
	n := int(math.Ceil(z95 * z95 * (1 - p) / p))
	// The closed form is exact up to rounding: settle it on Wilson itself.
	for n > 0 {
		if _, hi := Wilson(0, n-1, z95); hi > p {
			break
		}
		n--
	}
	for {
		if _, hi := Wilson(0, n, z95); hi <= p {
			return n
		}
		n++
	}
}

// TrialOutcome is what one trial of a repeated trigger test ended with.
type TrialOutcome struct {
	Verdict Verdict
	// RecoveryS is its recovery time after the spike, seconds; NaN when it
	// did not recover.
	RecoveryS float64
}

// TrialSummary is the odds over repeated trials of one test: the share
// of trials trapped, metastable and recovered with their intervals, and
// the recovery time's spread over those that recovered. The shares are
// over the draws: every trial but an inconclusive one, which claims
// nothing. A no-trigger trial is a draw that did not trap (the spike did
// not trip the trap this time), counted in Of and in none of the three,
// as the model's odds count its runs (request.TrapOdds), so the two
// compare.
type TrialSummary struct {
	Trials     int        `json:"trials"`
	Trapped    Proportion `json:"trapped"`
	Metastable Proportion `json:"metastable"`
	Recovered  Proportion `json:"recovered"`
	NoTrigger  int        `json:"no_trigger"`
	// Inconclusive trials claim nothing; too many of them make the odds
	// the odds of the others.
	Inconclusive int `json:"inconclusive"`
	// RecoveryMedianS, RecoveryMinS and RecoveryMaxS are over the trials
	// that recovered, seconds; nil when none did.
	RecoveryMedianS *float64 `json:"recovery_median_s"`
	RecoveryMinS    *float64 `json:"recovery_min_s"`
	RecoveryMaxS    *float64 `json:"recovery_max_s"`
}

// SummarizeTrials counts the trials' verdicts and spreads.
func SummarizeTrials(trials []TrialOutcome) TrialSummary {
	var trapped, meta, rec int
	s := TrialSummary{Trials: len(trials)}
	var times []float64
	for _, t := range trials {
		switch t.Verdict {
		case VerdictTrapped:
			trapped++
		case VerdictMetastable:
			meta++
		case VerdictRecovered:
			rec++
			if !math.IsNaN(t.RecoveryS) && !math.IsInf(t.RecoveryS, 0) {
				times = append(times, t.RecoveryS)
			}
		case VerdictNoTrigger:
			s.NoTrigger++
		default:
			s.Inconclusive++
		}
	}
	n := len(trials) - s.Inconclusive // the draws
	s.Trapped, s.Metastable, s.Recovered = NewProportion(trapped, n), NewProportion(meta, n), NewProportion(rec, n)
	if len(times) > 0 {
		slices.Sort(times)
		med := times[len(times)/2]
		if len(times)%2 == 0 {
			med = (times[len(times)/2-1] + times[len(times)/2]) / 2
		}
		s.RecoveryMedianS, s.RecoveryMinS, s.RecoveryMaxS = Num(med), Num(times[0]), Num(times[len(times)-1])
	}
	return s
}

// Side is where a repeated cell stands against a chosen level of P(trap).
type Side int

const (
	// Undecided: the interval still holds the level.
	Undecided Side = iota
	// Below: the interval's upper end is under the level.
	Below
	// Above: the interval's lower end is over the level.
	Above
)

// SequentialSide is the sequential rule of a cell repeated until its
// P(trap) is told apart from level (docs/model.md, "Trap probability"):
// Wald's sequential probability ratio test between P = level − δ and
// P = level + δ, δ = min(level, 1 − level)/2, with errors of 10 % each way.
// After k traps in n trials the log likelihood ratio is
// k·ln(p₁/p₀) + (n − k)·ln((1 − p₁)/(1 − p₀)); at or above ln 9 the cell
// is Above, at or below −ln 9 Below, else Undecided. At level 0.5
// (p₀ = 0.25, p₁ = 0.75) two trials that agree decide a cell; a cell near
// the level stays undecided until its budget runs out. At level 0.05 a
// clean cell needs 42 trials to be called below, and two traps call it
// above.
func SequentialSide(k, n int, level float64) Side {
	if n <= 0 || !(level > 0 && level < 1) {
		return Undecided
	}
	k = min(max(k, 0), n)
	d := math.Min(level, 1-level) / 2
	p0, p1 := level-d, level+d
	llr := float64(k)*math.Log(p1/p0) + float64(n-k)*math.Log((1-p1)/(1-p0))
	bound := math.Log((1 - sprtError) / sprtError)
	switch {
	case llr >= bound-1e-12:
		return Above
	case llr <= -bound+1e-12:
		return Below
	}
	return Undecided
}

// MinTrialsToDecide is the fewest trials SequentialSide takes to place a
// cell against level (0 < level < 1): below, every trial clean; above,
// every trial trapped. A cell of fewer trials than below can never be
// called below the level: at 0.05 that is 42, at 0.5 two (above: two at
// either). The closed form n·ln((1 − p₀)/(1 − p₁)) ≥ ln 9 (and
// n·ln(p₁/p₀) ≥ ln 9) is settled on SequentialSide itself. 0, 0 for a
// level outside (0, 1).
func MinTrialsToDecide(level float64) (below, above int) {
	if !(level > 0 && level < 1) {
		return 0, 0
	}
	d := math.Min(level, 1-level) / 2
	p0, p1 := level-d, level+d
	bound := math.Log((1 - sprtError) / sprtError)
	settle := func(x float64, side func(n int) bool) int {
		if !(x < 1e9) {
			return int(math.Min(x, 1e18)) // a level no campaign can afford
		}
		n := max(int(math.Ceil(x)), 1)
		for n > 1 && side(n-1) {
			n--
		}
		for !side(n) {
			n++
		}
		return n
	}
	below = settle(bound/math.Log((1-p0)/(1-p1)), func(n int) bool { return SequentialSide(0, n, level) == Below })
	above = settle(bound/math.Log(p1/p0), func(n int) bool { return SequentialSide(n, n, level) == Above })
	return below, above
}

// sprtError is the sequential test's error each way (α = β).
const sprtError = 0.1
