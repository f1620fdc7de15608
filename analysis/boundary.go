package analysis

import "math"

// Bracket is a search for a boundary between two outcomes along one size
// (docs/model.md, "Mapping the boundary"): Below is the largest size seen
// on the good side (recovered), Above the smallest seen on the bad side
// (trapped); NaN while none is. The smallest trapping trigger lies in
// (Below, Above]; for the recovery demand λ_r the roles are the same with
// "recovered at this demand" below and "stayed failed" above.
type Bracket struct {
	From, To  float64 // the first size tried and the largest
	Precision float64 // done when (Above − Below)/Above ≤ Precision
	Below     float64
	Above     float64
	// Floor also ends the search when the bracket is this narrow in
	// absolute terms: a boundary near zero (λ_r of a service whose clients
	// never give up) is never relatively narrow. Zero for none.
	Floor float64
	Tried int // sizes recorded
}

// NewBracket starts a search at from that grows towards to: each size is
// twice the last good one (at most to) until one is bad, then the bracket
// is halved until it is precision narrow (relative to its upper end).
func NewBracket(from, to, precision float64) Bracket {
	return Bracket{From: from, To: to, Precision: precision, Below: math.NaN(), Above: math.NaN()}
}

// NewKnownBracket starts a search between a size known good (below) and
// one known bad (above): bisection from the start, until the bracket is
// precision narrow relative to its upper end or to a quarter of the first
// bracket's.
func NewKnownBracket(below, above, precision float64) Bracket {
	b := NewBracket(below, above, precision)
	b.Below, b.Above = below, above
	b.Floor = precision * (above - below) / 4
	return b
}

// Record adds a judged size: bad is true when it was on the bad side.
func (b *Bracket) Record(size float64, bad bool) {
	b.Tried++
	if bad {
		if math.IsNaN(b.Above) || size < b.Above {
			b.Above = size
		}
		return
	}
	if math.IsNaN(b.Below) || size > b.Below {
		b.Below = size
	}
}

// BracketEnd says why a search is over.
type BracketEnd string

// The ends of a search; "" while it goes on.
const (
	// BracketNarrow: the boundary is bracketed to the precision.
	BracketNarrow BracketEnd = "narrow"
	// BracketNoneUpTo: every size up to To was on the good side.
	BracketNoneUpTo BracketEnd = "none up to the largest size"
	// BracketFirstBad: the first size was already on the bad side; the
	// boundary is below From.
	BracketFirstBad BracketEnd = "the first size was already past the boundary"
)

// Next returns the next size to try, or the reason the search is over.
func (b Bracket) Next() (float64, BracketEnd) {
	haveBelow, haveAbove := !math.IsNaN(b.Below), !math.IsNaN(b.Above)
	switch {
	case !haveBelow && !haveAbove:
		return b.From, ""
	case !haveBelow:
		if b.Above <= b.From {
			return math.NaN(), BracketFirstBad
		}
		return b.From, ""
	case !haveAbove:
		if b.Below >= b.To {
			return math.NaN(), BracketNoneUpTo
		}
		return math.Min(b.To, 2*b.Below), ""
	}
	mid := (b.Below + b.Above) / 2
	// The last test: adjacent floats, whose midpoint is one of them, are as
	// narrow as a bracket gets.
	if w := b.Above - b.Below; w <= b.Precision*b.Above || w <= b.Floor || mid <= b.Below || mid >= b.Above {
		return math.NaN(), BracketNarrow
	}
	return mid, ""
}

// MaxSteps is the most sizes a search from from to to at precision can
// try when the outcome flips at one size: the longest over boundaries
// spread across the range (and past both ends), each searched to its end.
func MaxSteps(from, to, precision float64) int {
	if !(from > 0 && to > from && precision > 0 && precision < 1) {
		return 1
	}
	worst := 0
	const n = 400
	for i := -1; i <= n+1; i++ {
		// Boundaries spread log-evenly over [from/2, 2·to].
		edge := from / 2 * math.Pow(4*to/from, float64(i)/n)
		b := NewBracket(from, to, precision)
		steps := 0
		for ; steps < 200; steps++ {
			size, end := b.Next()
			if end != "" {
				break
			}
			b.Record(size, size >= edge)
		}
		worst = max(worst, steps)
	}
	return worst
}

// MaxKnownSteps is the most sizes a bisection between below and above
// takes to reach precision.
func MaxKnownSteps(below, above, precision float64) int {
	if !(above > below && precision > 0 && precision < 1) {
		return 0
	}
	worst := 0
	const n = 400
	for i := 0; i <= n; i++ {
		edge := below + (above-below)*float64(i)/n
		b := NewKnownBracket(below, above, precision)
		steps := 0
		for ; steps < 200; steps++ {
			size, end := b.Next()
			if end != "" {
				break
			}
			b.Record(size, size >= edge)
		}
		worst = max(worst, steps)
	}
	return worst
}

// ModelSmallestMultiplier is the model's boundary for a multiplier search:
// the smallest k that traps at utilization rho with a spike of spikeS
// seconds, (1 + τ_out/Δ)/ρ, when A·ρ ≥ 1; +Inf when A·ρ < 1 (no spike
// traps: the service always recovers) (docs/model.md, "The trap",
// trigger size and trap condition).
func ModelSmallestMultiplier(a, rho, spikeS, timeoutS float64) float64 {
	if !trapped(a, rho) {
		return math.Inf(1)
	}
	return minMultiplier(rho, spikeS, timeoutS)
}

// ModelSmallestDuration is the same for a duration search at multiplier
// k: τ_out/(k·ρ − 1) seconds when A·ρ ≥ 1; +Inf otherwise.
func ModelSmallestDuration(a, rho, k, timeoutS float64) float64 {
	if !trapped(a, rho) {
		return math.Inf(1)
	}
	return MinSpike(k, rho, timeoutS)
}

// ModelRecoveryDemand is the model's λ_r for a FIFO that serves abandoned
// work: once failed, every first attempt costs A attempts, so the service
// comes back only when A·λ < C: λ_r = C/A, first attempts per second
// (docs/model.md, "Mapping the boundary", hysteresis).
func ModelRecoveryDemand(capacity, a float64) float64 {
	if a <= 0 {
		return math.NaN()
	}
	return capacity / a
}

// ModelSmallestCapacityLoss is the model's boundary for a capacity
// search: the smallest share of capacity 1 − C′/C a fault of faultS
// seconds must take away at utilization rho to trap, where the wait it
// leaves when the capacity comes back, f·(patience + (A·ρ/f − 1)·(Δ − t0)),
// is past the patience (docs/model.md, "A capacity trigger"); +Inf when
// A·ρ < 1 (no fault traps) or no loss short of everything does.
func ModelSmallestCapacityLoss(a, rho, faultS, patienceS float64) float64 {
	if !trapped(a, rho) || faultS <= 0 || rho <= 0 || rho >= 1 {
		return math.Inf(1)
	}
	leaves := func(f float64) float64 { return faultPeakWait(a, rho, f, faultS, patienceS) }
	// The wait left falls as more capacity is left; bisect on f in
	// (0, fMax), fMax = the most capacity left that still triggers.
	lo, hi := 1e-9, MaxFaultCapacity(rho, faultS, patienceS)
	if hi <= lo || leaves(lo) <= patienceS {
		return math.Inf(1)
	}
	if leaves(hi) > patienceS {
		return 1 - hi
	}
	for range 100 {
		mid := (lo + hi) / 2
		if leaves(mid) > patienceS {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 1 - lo
}
