package analysis

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Wilson's interval against values worked by hand (z = 1.96): 0 of 10 is
// [0, 0.278], 5 of 10 [0.237, 0.763], 10 of 10 [0.722, 1].
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{0, 0, 0, 1},
		{1, 1, 0.2065, 1},
	} {
		lo, hi := Wilson(c.k, c.n, z95)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("%d of %d: [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// The interval holds the estimate and stays in [0, 1]; more trials at the
// same share never widen it.
func TestWilsonProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5000).Draw(t, "n")
		k := rapid.IntRange(0, n).Draw(t, "k")
		lo, hi := Wilson(k, n, z95)
		p := float64(k) / float64(n)
		if !(0 <= lo && lo <= p+1e-12 && p-1e-12 <= hi && hi <= 1) {
			t.Fatalf("%d of %d: [%v, %v] does not hold %v", k, n, lo, hi, p)
		}
		lo2, hi2 := Wilson(2*k, 2*n, z95)
		if hi2-lo2 > hi-lo+1e-12 {
			t.Fatalf("%d of %d: twice the trials widened the interval", k, n)
		}
	})
}

// A gate at P(trap) ≤ 0.05 needs 73 clean trials; one trial never passes
// it; a trap among them moves the bound up.
func TestCleanTrialsFor(t *testing.T) {
	if n := CleanTrialsFor(0.05); n != 73 {
		t.Errorf("clean trials for 0.05: %d, want 73", n)
	}
	if n := CleanTrialsFor(0.1); n != 35 {
		t.Errorf("clean trials for 0.1: %d, want 35", n)
	}
	for _, p := range []float64{0.01, 0.05, 0.2, 0.5} {
		n := CleanTrialsFor(p)
		if _, hi := Wilson(0, n, z95); hi > p {
			t.Errorf("p %v: %d clean trials give %v", p, n, hi)
		}
		if _, hi := Wilson(0, n-1, z95); hi <= p {
			t.Errorf("p %v: %d trials were enough", p, n-1)
		}
	}
}

// The summary counts verdicts over the draws (every trial but an
// inconclusive one; a no-trigger trial is a draw that did not trap) and
// spreads the recovered trials' times.
func TestSummarizeTrials(t *testing.T) {
	s := SummarizeTrials([]TrialOutcome{
		{VerdictTrapped, math.NaN()}, {VerdictRecovered, 4}, {VerdictRecovered, 10}, {VerdictRecovered, 6},
		{VerdictMetastable, math.NaN()}, {VerdictInconclusive, math.NaN()}, {VerdictNoTrigger, math.NaN()},
	})
	if s.Trials != 7 || s.Trapped.Count != 1 || s.Recovered.Count != 3 || s.Metastable.Count != 1 || s.Inconclusive != 1 || s.NoTrigger != 1 ||
		s.Trapped.Of != 6 || s.Recovered.P != 0.5 || *s.RecoveryMedianS != 6 || *s.RecoveryMinS != 4 || *s.RecoveryMaxS != 10 {
		t.Errorf("summary %+v", s)
	}
	if s := SummarizeTrials(nil); s.RecoveryMedianS != nil || !math.IsNaN(s.Trapped.P) || s.Trapped.Hi != 1 {
		t.Errorf("no trials: %+v", s)
	}
}

// The sequential rule decides a cell far from the level in two trials at
// level 0.5, leaves a split cell undecided, and needs many clean trials
// at 0.05.
func TestSequentialSide(t *testing.T) {
	for _, c := range []struct {
		k, n  int
		level float64
		want  Side
	}{
		{1, 1, 0.5, Undecided},
		{2, 2, 0.5, Above},
		{0, 2, 0.5, Below},
		{1, 2, 0.5, Undecided},
		{5, 10, 0.5, Undecided},
		{0, 41, 0.05, Undecided},
		{0, 42, 0.05, Below},
		{2, 2, 0.05, Above},
		{0, 0, 0.5, Undecided},
	} {
		if got := SequentialSide(c.k, c.n, c.level); got != c.want {
			t.Errorf("%d of %d at %v: %v, want %v", c.k, c.n, c.level, got, c.want)
		}
	}
}

// The fewest trials that decide a cell: 42 clean ones below 0.05 and two
// traps above it, two either way at 0.5, 42 traps above 0.95; each is
// the first count SequentialSide decides at, for many levels.
func TestMinTrialsToDecide(t *testing.T) {
	for _, c := range []struct {
		level        float64
		below, above int
	}{{0.05, 42, 2}, {0.5, 2, 2}, {0.95, 2, 42}, {0, 0, 0}, {1, 0, 0}} {
		if b, a := MinTrialsToDecide(c.level); b != c.below || a != c.above {
			t.Errorf("level %g: %d below, %d above; want %d, %d", c.level, b, a, c.below, c.above)
		}
	}
	for i := 1; i < 1000; i++ {
		level := float64(i) / 1000
		b, a := MinTrialsToDecide(level)
		if SequentialSide(0, b, level) != Below || SequentialSide(0, b-1, level) == Below ||
			SequentialSide(a, a, level) != Above || SequentialSide(a-1, a-1, level) == Above {
			t.Errorf("level %g: %d below, %d above", level, b, a)
		}
	}
}
