package analysis

import (
	"fmt"
	"math"
	"testing"
)

// oddsSearch runs an odds search at level with a budget of trials per
// cell against trap(size, trial), the outcome of one trial; it returns
// the sizes tried, the trials each took and the search's end.
func oddsSearch(from, to, precision, level float64, budget int, trap func(size float64, trial int) bool) (sizes []float64, trials []int, end BracketEnd) {
	b := NewOddsBracket(from, to, precision, level)
	for range 100 {
		size, e := b.Next()
		if e != "" {
			return sizes, trials, e
		}
		k, n := 0, 0
		side := Undecided
		for n < budget && side == Undecided {
			if trap(size, n) {
				k++
			}
			n++
			side = SequentialSide(k, n, level)
		}
		sizes, trials = append(sizes, size), append(trials, n)
		b.RecordSide(size, side)
	}
	return sizes, trials, "runaway"
}

// On a service whose outcome is certain at every size, a search with odds
// at level 0.5 tries the sizes a deterministic search tries and costs two
// trials a cell: at most twice the deterministic search, whatever the budget.
func TestOddsSearchCostsTwiceOnCertainCells(t *testing.T) {
	for _, edge := range []float64{1.2, 2.71, 3.3, 7, 12} {
		det := NewBracket(1.5, 10, 0.1)
		var detSizes []float64
		for {
			size, end := det.Next()
			if end != "" {
				break
			}
			detSizes = append(detSizes, size)
			det.Record(size, size >= edge)
		}
		for _, budget := range []int{3, 10} {
			sizes, trials, end := oddsSearch(1.5, 10, 0.1, 0.5, budget, func(size float64, _ int) bool { return size >= edge })
			if fmt.Sprint(sizes) != fmt.Sprint(detSizes) || end == BracketAtLevel {
				t.Errorf("edge %g, budget %d: sizes %v (%s); deterministic %v", edge, budget, sizes, end, detSizes)
			}
			total := 0
			for _, n := range trials {
				total += n
			}
			if total != 2*len(detSizes) {
				t.Errorf("edge %g, budget %d: %d trials over %d cells; want %d", edge, budget, total, len(sizes), 2*len(detSizes))
			}
		}
	}
}

// A cell that comes out both ways stays undecided until its budget is
// spent, and the search stops there: it is the boundary's own estimate.
func TestOddsSearchStopsAtAnUndecidedCell(t *testing.T) {
	sizes, trials, end := oddsSearch(1.5, 10, 0.1, 0.5, 3, func(size float64, trial int) bool {
		if size == 3 {
			return trial%2 == 0 // trapped, clean, trapped
		}
		return size > 3
	})
	if end != BracketAtLevel || fmt.Sprint(sizes) != "[1.5 3]" || fmt.Sprint(trials) != "[2 3]" {
		t.Errorf("sizes %v, trials %v, end %q", sizes, trials, end)
	}
	b := NewOddsBracket(1, 2, 0.1, 0.5)
	b.RecordSide(1, Undecided)
	if s, e := b.Next(); e != BracketAtLevel || !math.IsNaN(s) || b.Straddle != 1 || b.Tried != 1 {
		t.Errorf("next %g %q, %+v", s, e, b)
	}
}
