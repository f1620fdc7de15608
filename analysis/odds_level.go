package analysis

import "math"

// BisectLevel is where p(size) crosses level between from and to
// (docs/model.md, "Mapping the boundary": the model's boundary at the
// level): the bracket (lo, hi) with p(lo) < level ≤ p(hi) is halved until
// (hi − lo)/hi ≤ precision, at most maxSteps sizes asked in all, then the
// crossing is interpolated linearly between its ends. note says why there
// is none (already at the level at from, still short of it at to); err is
// p's.
func BisectLevel(p func(size float64) (float64, error), from, to, precision, level float64, maxSteps int) (size float64, note string, err error) {
	lo, hi := from, to
	plo, err := p(lo)
	if err != nil {
		return math.NaN(), "", err
	}
	if plo >= level {
		return math.NaN(), "the model's P(trap) is at or above the level already at the first size", nil
	}
	phi, err := p(hi)
	if err != nil {
		return math.NaN(), "", err
	}
	if phi < level {
		return math.NaN(), "the model's P(trap) stays below the level up to the largest size", nil
	}
	for step := 2; step < maxSteps && (hi-lo) > precision*hi; step++ {
		mid := (lo + hi) / 2
		pm, err := p(mid)
		if err != nil {
			return math.NaN(), "", err
		}
		if pm >= level {
			hi, phi = mid, pm
		} else {
			lo, plo = mid, pm
		}
	}
	return lo + (level-plo)/(phi-plo)*(hi-lo), "", nil
}

// SurvivedAtLevel is the size a campaign with trials judges
// min_trigger_margin by (docs/model.md, "Mapping the boundary"): the
// boundary's lower interval end, or while that is unknown the largest
// size whose cell the sequential rule placed below the level; NaN when
// neither is known.
func SurvivedAtLevel(bd OddsBoundary, points []OddsPoint) float64 {
	if !math.IsNaN(bd.Lo) {
		return bd.Lo
	}
	below := math.NaN()
	for _, p := range points {
		if p.Side == Below && !(p.Size <= below) {
			below = p.Size
		}
	}
	return below
}
