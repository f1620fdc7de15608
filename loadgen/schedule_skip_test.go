package loadgen

import (
	"math"
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// SkipBefore counts the arrivals it skips without generating them, and
// the schedule goes on after them as if they had been generated.
func TestScheduleSkipBeforeUniform(t *testing.T) {
	tests := []struct {
		name   string
		stages []Stage
		skip   time.Duration
	}{
		{"constant", []Stage{Constant(time.Second, 100)}, 250 * time.Millisecond},
		{"ramp", []Stage{Ramp(2*time.Second, 0, 300)}, 1500 * time.Millisecond},
		{"across stages", []Stage{Constant(time.Second, 1e3), Constant(time.Second, 0), Constant(time.Second, 10)}, 2500 * time.Millisecond},
		{"past the end", []Stage{Constant(time.Second, 40)}, time.Hour},
		{"nothing before", []Stage{Constant(time.Second, 40)}, 0},
	}
	for _, tc := range tests {
		whole := collect(t, NewSchedule(tc.stages, vocab.Uniform, 1))
		s := NewSchedule(tc.stages, vocab.Uniform, 1)
		n := s.SkipBefore(tc.skip)
		rest := collect(t, s)
		if want := countIn(whole, 0, tc.skip); n != int64(want) {
			t.Errorf("%s: skipped %d, generating them gives %d", tc.name, n, want)
		}
		if int(n)+len(rest) != len(whole) {
			t.Errorf("%s: %d skipped + %d after ≠ %d", tc.name, n, len(rest), len(whole))
		}
		if len(rest) > 0 && rest[0] < tc.skip {
			t.Errorf("%s: next arrival at %v, before the skip to %v", tc.name, rest[0], tc.skip)
		}
	}
}

// A rate no dispatcher can generate one by one is skipped in O(1): ten
// seconds at 10⁹/s (10¹⁰ arrivals) counted exactly for uniform arrivals,
// within a few standard deviations for Poisson ones.
func TestScheduleSkipBeforeHuge(t *testing.T) {
	stages := []Stage{Constant(10*time.Second, MaxRate), Constant(time.Second, 10)}
	u := NewSchedule(stages, vocab.Uniform, 1)
	if n := u.SkipBefore(10 * time.Second); n != 1e10 {
		t.Errorf("uniform: skipped %d, want 1e10", n)
	}
	if at, ok := u.Next(); !ok || at != 10*time.Second {
		t.Errorf("uniform: next arrival %v %v, want the baseline's first at 10s", at, ok)
	}
	p := NewSchedule(stages, vocab.Poisson, 1)
	if n := p.SkipBefore(10 * time.Second); math.Abs(float64(n)-1e10) > 5*math.Sqrt(1e10) {
		t.Errorf("poisson: skipped %d, want 1e10 ± 5σ", n)
	}
	if at, ok := p.Next(); !ok || at < 10*time.Second {
		t.Errorf("poisson: next arrival %v %v, want one in the baseline", at, ok)
	}
}

// Poisson counts drawn by SkipBefore have the process's mean and variance,
// for small means (drawn exactly) and large ones (normal approximation).
func TestScheduleSkipBeforePoisson(t *testing.T) {
	for _, rate := range []float64{3, 20, 500} {
		const runs = 4000
		var sum, sq float64
		for seed := range uint64(runs) {
			s := NewSchedule([]Stage{Constant(2*time.Second, rate)}, vocab.Poisson, seed)
			n := float64(s.SkipBefore(time.Second))
			sum += n
			sq += n * n
			if at, ok := s.Next(); ok && at < time.Second {
				t.Fatalf("rate %v: next arrival %v before the skip", rate, at)
			}
		}
		mean := sum / runs
		variance := sq/runs - mean*mean
		// The mean of 4000 counts is within 4 standard errors of λ.
		if se := math.Sqrt(rate / runs); math.Abs(mean-rate) > 4*se {
			t.Errorf("rate %v: mean count %.3f, want %v ± %.3f", rate, mean, rate, 4*se)
		}
		if variance < 0.85*rate || variance > 1.15*rate {
			t.Errorf("rate %v: variance %.2f, want about %v", rate, variance, rate)
		}
	}
}
