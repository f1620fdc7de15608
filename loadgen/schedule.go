package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Stage is one segment of the first-attempt arrival-rate schedule; the rate
// moves linearly from From to To (equal for a constant stage), in first
// attempts per second, over Duration.
type Stage struct {
	Duration time.Duration // length of the stage; stages with Duration ≤ 0 are skipped
	From, To float64       // rate at the start and at the end of the stage, per second (λ)
}

// Constant returns a stage of length d at a constant rate (first attempts per second).
func Constant(d time.Duration, rate float64) Stage {
	return Stage{Duration: d, From: rate, To: rate}
}

// Ramp returns a stage of length d whose rate moves linearly from one rate to
// another (first attempts per second).
func Ramp(d time.Duration, from, to float64) Stage {
	return Stage{Duration: d, From: from, To: to}
}

// MaxRate is the highest stage rate, first attempts per second, that
// ValidateStages accepts: a thousand times what one process can send
// (about 10⁶ a second), so any spike a scenario can mean is accepted and
// what cannot be sent is counted as dropped or refused; and low enough
// that the schedule's cumulative count stays an exact float64 integer
// (below 2⁵³) for 100 days and the per-second counts fit an int64.
const MaxRate = 1e9

// ValidateStages reports the first stage with a negative, non-finite or
// above-MaxRate rate, or a negative duration.
func ValidateStages(stages []Stage) error {
	for i, st := range stages {
		if st.Duration < 0 {
			return fmt.Errorf("loadgen: stage %d: negative duration %v", i, st.Duration)
		}
		for _, r := range []float64{st.From, st.To} {
			if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("loadgen: stage %d: invalid rate %v", i, r)
			}
			if r > MaxRate {
				return fmt.Errorf("loadgen: stage %d: rate %g/s is above the most a driver accounts for (%g/s)", i, r, float64(MaxRate))
			}
		}
	}
	return nil
}

// Schedule yields absolute planned send times (offsets from the start of the
// schedule) of the first attempts; pure and deterministic for a seed.
//
// Planned times are computed by inverting the cumulative rate
// Λ(t) = ∫₀ᵗ λ(s) ds stage by stage, never by adding sleeps, so no error
// accumulates: uniform arrivals are planned at Λ⁻¹(n−1) for n = 1, 2, …, and
// Poisson arrivals at Λ⁻¹(S_n) where S_n is a sum of n unit-rate exponentials
// (the time-change construction of a non-homogeneous Poisson process).
// A Schedule is not safe for concurrent use.
type Schedule struct {
	stages   []Stage
	arrivals vocab.Arrivals
	rng      *rand.Rand

	i      int           // current stage
	start  time.Duration // offset of stage i
	base   float64       // Λ at the start of stage i
	target float64       // Λ value of the next arrival
}

// NewSchedule returns the schedule of the given stages. Negative rates are
// treated as zero (NewDriver rejects them); seed fixes the Poisson draws.
func NewSchedule(stages []Stage, arrivals vocab.Arrivals, seed uint64) *Schedule {
	s := &Schedule{
		stages:   append([]Stage(nil), stages...),
		arrivals: arrivals,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}
	if arrivals == vocab.Poisson {
		s.target = s.rng.ExpFloat64()
	}
	return s
}

// withPhase shifts a uniform schedule by phase, a fraction of one arrival
// in [0, 1) (NewDriver checks Config.Phase): its n-th arrival is planned at
// Λ⁻¹(n−1+phase). A Poisson schedule is returned unchanged.
func (s *Schedule) withPhase(phase float64) *Schedule {
	if s.arrivals == vocab.Uniform {
		s.target += phase
	}
	return s
}

// Duration returns the total length of the schedule.
func (s *Schedule) Duration() time.Duration {
	var d time.Duration
	for _, st := range s.stages {
		if st.Duration > 0 {
			d += st.Duration
		}
	}
	return d
}

// Expected returns Λ(t), the expected number of first attempts planned in
// [0, t): λ integrated over the stages.
func Expected(stages []Stage, t time.Duration) float64 {
	var total float64
	var start time.Duration
	for _, st := range stages {
		if st.Duration <= 0 {
			continue
		}
		if t <= start {
			break
		}
		x := min(t-start, st.Duration).Seconds()
		a, b := max(st.From, 0), max(st.To, 0)
		slope := (b - a) / st.Duration.Seconds()
		total += a*x + slope*x*x/2
		start += st.Duration
	}
	return total
}

// Next returns the planned time of the next first attempt, as an offset from
// the start of the schedule, and false once the schedule has ended. Planned
// times never decrease.
func (s *Schedule) Next() (at time.Duration, ok bool) {
	for s.i < len(s.stages) {
		st := s.stages[s.i]
		if st.Duration <= 0 {
			s.i++
			continue
		}
		a, b := max(st.From, 0), max(st.To, 0)
		d := st.Duration.Seconds()
		total := (a + b) / 2 * d // Λ over the whole stage
		x := s.target - s.base   // Λ still to go inside this stage
		if x < total {
			off := invertLinear(a, (b-a)/d, x)
			off = min(max(off, 0), d)
			at = s.start + time.Duration(off*float64(time.Second))
			if at >= s.start+st.Duration { // rounding at the very edge
				at = s.start + st.Duration - 1
			}
			s.advance()
			return at, true
		}
		s.base += total
		s.start += st.Duration
		s.i++
	}
	return 0, false
}

// End is the schedule's length: the end of its last stage, whether or not
// an arrival falls near it. A stage of rate zero is a pause, not an end.
func (s *Schedule) End() time.Duration {
	var end time.Duration
	for _, st := range s.stages {
		end += max(st.Duration, 0)
	}
	return end
}

// advance moves the target to the next arrival.
func (s *Schedule) advance() {
	if s.arrivals == vocab.Poisson {
		s.target += s.rng.ExpFloat64()
	} else {
		s.target++
	}
}

// invertLinear solves a·t + slope·t²/2 = x for t ≥ 0, the inverse of the
// cumulative rate inside a linear stage with rate a + slope·t. The form
// 2x / (a + √(a² + 2·slope·x)) is stable for slope → 0 and for a = 0.
func invertLinear(a, slope, x float64) float64 {
	if x <= 0 {
		return 0
	}
	disc := a*a + 2*slope*x
	if disc < 0 {
		disc = 0
	}
	den := a + math.Sqrt(disc)
	if den <= 0 {
		return math.Inf(1)
	}
	return 2 * x / den
}
