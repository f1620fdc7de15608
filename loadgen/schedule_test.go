package loadgen

import (
	"math"
	"sort"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/vocab"
)

// collect drains a schedule.
func collect(t *testing.T, s *Schedule) []time.Duration {
	t.Helper()
	var out []time.Duration
	prev := time.Duration(-1)
	for {
		at, ok := s.Next()
		if !ok {
			return out
		}
		if at < prev {
			t.Fatalf("planned times decrease: %v after %v", at, prev)
		}
		prev = at
		out = append(out, at)
	}
}

// countIn counts planned times in [from, to).
func countIn(times []time.Duration, from, to time.Duration) int {
	lo := sort.Search(len(times), func(i int) bool { return times[i] >= from })
	hi := sort.Search(len(times), func(i int) bool { return times[i] >= to })
	return hi - lo
}

// checkWindows asserts that every 10 s window (sliding by 1 s) holds the
// expected count within tol (relative).
func checkWindows(t *testing.T, stages []Stage, times []time.Duration, tol float64) {
	t.Helper()
	total := NewSchedule(stages, vocab.Uniform, 0).Duration()
	const win = 10 * time.Second
	for from := time.Duration(0); from+win <= total; from += time.Second {
		want := Expected(stages, from+win) - Expected(stages, from)
		got := float64(countIn(times, from, from+win))
		if math.Abs(got-want) > tol*want {
			t.Errorf("window [%v, %v): %v arrivals, want %.1f ± %.1f%%", from, from+win, got, want, 100*tol)
		}
	}
}

func TestScheduleUniformWindows(t *testing.T) {
	tests := []struct {
		name   string
		stages []Stage
	}{
		// The trigger test shape: baseline, tenfold spike, baseline.
		{"spike", []Stage{Constant(30*time.Second, 100), Constant(20*time.Second, 1000), Constant(30*time.Second, 100)}},
		// Linear ramps up and down, including from and to zero.
		{"ramps", []Stage{Ramp(20*time.Second, 0, 500), Ramp(30*time.Second, 500, 50), Constant(15*time.Second, 50)}},
		// A zero-rate gap and a zero-length stage must plan nothing.
		{"gap", []Stage{Constant(15*time.Second, 200), Constant(0, 1e6), Constant(12*time.Second, 0), Constant(20*time.Second, 200)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			times := collect(t, NewSchedule(tc.stages, vocab.Uniform, 1))
			checkWindows(t, tc.stages, times, 0.01)
			if got, want := float64(len(times)), Expected(tc.stages, time.Hour); math.Abs(got-want) > 1 {
				t.Errorf("total %v, want %v ± 1", got, want)
			}
			if last := times[len(times)-1]; last >= NewSchedule(tc.stages, vocab.Uniform, 0).Duration() {
				t.Errorf("last planned %v beyond the end", last)
			}
		})
	}
}

func TestScheduleGapPlansNothing(t *testing.T) {
	stages := []Stage{Constant(time.Second, 100), Constant(5*time.Second, 0), Constant(time.Second, 100)}
	for _, arr := range []vocab.Arrivals{vocab.Uniform, vocab.Poisson} {
		times := collect(t, NewSchedule(stages, arr, 7))
		if n := countIn(times, time.Second, 6*time.Second); n != 0 {
			t.Errorf("%v: %d arrivals planned in a zero-rate stage", arr, n)
		}
	}
}

func TestSchedulePoissonWindows(t *testing.T) {
	// At ≥ 20,000/s a 10 s window holds ≥ 200,000 arrivals, whose Poisson
	// standard deviation is ≤ 0.22 %: 1 % is ≥ 4.5 standard deviations.
	stages := []Stage{Constant(15*time.Second, 20000), Ramp(10*time.Second, 20000, 50000), Constant(15*time.Second, 20000)}
	for seed := uint64(1); seed <= 3; seed++ {
		times := collect(t, NewSchedule(stages, vocab.Poisson, seed))
		checkWindows(t, stages, times, 0.01)
	}
}

// ksExponential returns the Kolmogorov–Smirnov statistic √n·D of unit-rate
// exponential samples.
func ksExponential(xs []float64) float64 {
	sort.Float64s(xs)
	n := float64(len(xs))
	var d float64
	for i, x := range xs {
		f := 1 - math.Exp(-x)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return math.Sqrt(n) * d
}

func TestSchedulePoissonGoodnessOfFit(t *testing.T) {
	// Mapping each planned time through the cumulative rate Λ must give a
	// unit-rate Poisson process whatever the stages: the gaps of Λ(t_n) are
	// Exp(1). Kolmogorov–Smirnov at α = 0.001 (critical √n·D = 1.95).
	tests := []struct {
		name   string
		stages []Stage
	}{
		// Constant rate: plain exponential inter-arrivals.
		{"constant", []Stage{Constant(100*time.Second, 500)}},
		// Linear ramp: the time change must be exact inside a stage.
		{"ramp", []Stage{Ramp(100*time.Second, 50, 1500)}},
		// Stage boundaries: gaps that span two stages.
		{"steps", []Stage{Constant(20*time.Second, 100), Constant(20*time.Second, 2000), Ramp(20*time.Second, 2000, 10), Constant(20*time.Second, 300)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			times := collect(t, NewSchedule(tc.stages, vocab.Poisson, 42))
			gaps := make([]float64, 0, len(times))
			prev := 0.0
			for _, at := range times {
				l := Expected(tc.stages, at)
				gaps = append(gaps, l-prev)
				prev = l
			}
			if ks := ksExponential(gaps); ks > 1.95 {
				t.Errorf("KS √n·D = %.3f over %d gaps: not exponential", ks, len(gaps))
			}
			// Sanity of the test itself: uniform arrivals must fail it.
			u := collect(t, NewSchedule(tc.stages, vocab.Uniform, 42))
			ug := make([]float64, 0, len(u))
			prev = 0
			for _, at := range u {
				l := Expected(tc.stages, at)
				ug = append(ug, l-prev)
				prev = l
			}
			if ks := ksExponential(ug); ks < 1.95 {
				t.Errorf("KS accepts uniform arrivals (√n·D = %.3f)", ks)
			}
		})
	}
}

func TestScheduleDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		n := rapid.IntRange(1, 4).Draw(t, "stages")
		var stages []Stage
		for i := 0; i < n; i++ {
			stages = append(stages, Ramp(
				time.Duration(rapid.IntRange(0, 3000).Draw(t, "ms"))*time.Millisecond,
				rapid.Float64Range(0, 2000).Draw(t, "from"),
				rapid.Float64Range(0, 2000).Draw(t, "to")))
		}
		arr := vocab.Arrivals(rapid.IntRange(0, 1).Draw(t, "arrivals"))
		a, b := NewSchedule(stages, arr, seed), NewSchedule(stages, arr, seed)
		end := a.Duration()
		prev := time.Duration(0)
		for {
			x, okA := a.Next()
			y, okB := b.Next()
			if okA != okB || x != y {
				t.Fatalf("same seed, different schedules: %v/%v vs %v/%v", x, okA, y, okB)
			}
			if !okA {
				break
			}
			if x < prev || x < 0 || x >= end {
				t.Fatalf("planned time %v out of order or outside [0, %v)", x, end)
			}
			prev = x
		}
	})
}

func TestExpected(t *testing.T) {
	stages := []Stage{Constant(10*time.Second, 100), Ramp(10*time.Second, 100, 300)}
	tests := []struct {
		at   time.Duration
		want float64
	}{
		{0, 0},                   // nothing before the start
		{5 * time.Second, 500},   // half the constant stage
		{10 * time.Second, 1000}, // end of the constant stage
		{15 * time.Second, 1750}, // 1000 + 100·5 + 20·5²/2 (slope 20/s²)
		{20 * time.Second, 3000}, // 1000 + (100+300)/2·10
		{time.Hour, 3000},        // past the end
	}
	for _, tc := range tests {
		if got := Expected(stages, tc.at); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Expected(%v) = %v, want %v", tc.at, got, tc.want)
		}
	}
}

func BenchmarkScheduleNext(b *testing.B) {
	for _, arr := range []vocab.Arrivals{vocab.Uniform, vocab.Poisson} {
		b.Run(arr.String(), func(b *testing.B) {
			s := NewSchedule([]Stage{Ramp(1e6*time.Second, 1000, 2000)}, arr, 1)
			for b.Loop() {
				s.Next()
			}
		})
	}
}

// N uniform schedules at 1/N of the rate, shifted by phases 0, 1/N, …,
// together plan what one schedule at the whole rate plans (to rounding),
// ramps included; without the phases they would send N arrivals at once.
func TestSchedulePhasesMergeIntoOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "n")
		from := rapid.Float64Range(1, 500).Draw(t, "from")
		to := rapid.Float64Range(1, 500).Draw(t, "to")
		stages := []Stage{Ramp(5*time.Second, from, to), Constant(3*time.Second, to)}
		var one []time.Duration
		for s := NewSchedule(stages, vocab.Uniform, 1); ; {
			at, ok := s.Next()
			if !ok {
				break
			}
			one = append(one, at)
		}
		var merged []time.Duration
		share := make([]Stage, len(stages))
		for i, st := range stages {
			share[i] = Stage{Duration: st.Duration, From: st.From / float64(n), To: st.To / float64(n)}
		}
		for i := range n {
			for s := NewSchedule(share, vocab.Uniform, uint64(i)).withPhase(float64(i) / float64(n)); ; {
				at, ok := s.Next()
				if !ok {
					break
				}
				merged = append(merged, at)
			}
		}
		sort.Slice(merged, func(a, b int) bool { return merged[a] < merged[b] })
		// Arrivals whose Λ lands within rounding of the schedule's end may
		// fall on either side of it.
		if d := len(merged) - len(one); d < -n || d > n {
			t.Fatalf("%d agents planned %d arrivals, one schedule %d", n, len(merged), len(one))
		}
		for k := range min(len(one), len(merged)) {
			if diff := merged[k] - one[k]; diff < -time.Microsecond || diff > time.Microsecond {
				t.Fatalf("arrival %d: %v merged, %v alone (%d agents)", k, merged[k], one[k], n)
			}
		}
	})
}

func TestSchedulePhaseLeavesPoissonAlone(t *testing.T) {
	stages := []Stage{Constant(2*time.Second, 100)}
	a := collect(t, NewSchedule(stages, vocab.Poisson, 3))
	b := collect(t, NewSchedule(stages, vocab.Poisson, 3).withPhase(0.5))
	if len(a) != len(b) || a[0] != b[0] {
		t.Errorf("a phase moved Poisson arrivals: %d/%v against %d/%v", len(a), a[0], len(b), b[0])
	}
}
