package loadgen

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// SkipBefore drops every arrival still to come that is planned before
// offset t, without computing their times, and returns how many there
// were. Its cost does not depend on their number (O(stages)): uniform
// arrivals are counted exactly; for Poisson arrivals the count is drawn
// (Poisson, whose mean is the stretch's expected count) and the next
// arrival after t is drawn afresh, which the process being memoryless
// makes exact: the arrivals after t are distributed as if none had been
// skipped.
func (s *Schedule) SkipBefore(t time.Duration) int64 {
	return s.skipTo(Expected(s.stages, t))
}

// skipTo drops the arrivals still to come whose cumulative-rate position
// is below lambda and returns how many there were.
func (s *Schedule) skipTo(lambda float64) int64 {
	x := lambda - s.target
	if !(x > 0) {
		return 0
	}
	if s.arrivals == vocab.Poisson {
		// The next arrival is at target < lambda; the others in
		// (target, lambda) are a Poisson count; the one after lambda is
		// an exponential beyond it.
		n := 1 + poisson(s.rng, x)
		s.target = lambda + s.rng.ExpFloat64()
		return n
	}
	n := math.Ceil(x) // positions target, target+1, … below lambda
	s.target += n
	return int64(n)
}

// poisson draws a Poisson count of mean m: exactly (Knuth's product of
// uniforms) below a mean of 30, by the normal approximation above it,
// whose error on the count is a fraction of its spread √m.
func poisson(rng *rand.Rand, m float64) int64 {
	if !(m > 0) {
		return 0
	}
	if m < 30 {
		limit := math.Exp(-m)
		k, p := int64(0), rng.Float64()
		for p > limit {
			k++
			p *= rng.Float64()
		}
		return k
	}
	return max(0, int64(math.Round(m+math.Sqrt(m)*rng.NormFloat64())))
}
