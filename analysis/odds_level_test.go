package analysis

import (
	"errors"
	"math"
	"testing"
)

// The model's boundary at the level: a ramp through 0.5 at 2.8 is found
// within the steps allowed; a range already past the level, or short of
// it, says so; p's error is returned.
func TestBisectLevel(t *testing.T) {
	calls := 0
	ramp := func(s float64) (float64, error) { calls++; return math.Min(1, math.Max(0, (s-2.7)/0.2)), nil } // 0.5 at 2.8
	size, note, err := BisectLevel(ramp, 1.5, 10, 0.01, 0.5, 20)
	if err != nil || note != "" || math.Abs(size-2.8) > 0.03 || calls > 20 {
		t.Errorf("size %g, note %q, err %v, %d calls", size, note, err, calls)
	}
	if _, note, _ := BisectLevel(ramp, 3, 10, 0.01, 0.5, 20); note == "" {
		t.Error("no note when the first size is past the level")
	}
	if _, note, _ := BisectLevel(ramp, 1, 2, 0.01, 0.5, 20); note == "" {
		t.Error("no note when the largest size is short of the level")
	}
	boom := errors.New("boom")
	if _, _, err := BisectLevel(func(float64) (float64, error) { return 0, boom }, 1, 2, 0.01, 0.5, 20); !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
}

// The margin at a level stands on the boundary's lower end, else on the
// largest cell placed below the level, else on nothing.
func TestSurvivedAtLevel(t *testing.T) {
	pts := []OddsPoint{{Size: 2, Side: Below}, {Size: 3, Side: Below}, {Size: 2.5, Side: Below}, {Size: 4, Side: Above}, {Size: 3.5, Side: Undecided}}
	if got := SurvivedAtLevel(OddsBoundary{Size: 3.4, Lo: 3.1, Hi: 3.8}, pts); got != 3.1 {
		t.Errorf("with an interval: %v, want its lower end 3.1", got)
	}
	nan := math.NaN()
	if got := SurvivedAtLevel(OddsBoundary{Size: 4, Lo: nan, Hi: nan}, pts); got != 3 {
		t.Errorf("without an interval: %v, want the largest size below, 3", got)
	}
	if got := SurvivedAtLevel(OddsBoundary{Size: nan, Lo: nan, Hi: nan}, pts[3:]); !math.IsNaN(got) {
		t.Errorf("nothing below: %v", got)
	}
}
