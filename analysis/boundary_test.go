package analysis

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// search runs b against an outcome that flips at edge (bad from edge up)
// and returns the bracket at its end, the end and the sizes tried.
func search(b Bracket, edge float64) (Bracket, BracketEnd, []float64) {
	var tried []float64
	for range 500 {
		size, end := b.Next()
		if end != "" {
			return b, end, tried
		}
		tried = append(tried, size)
		b.Record(size, size >= edge)
	}
	return b, "", tried
}

// Whatever the boundary, the search ends: bracketed to the precision when
// it lies in (from, to], "none" when above to, "first bad" when at or
// below from; never more sizes than MaxSteps, never a size outside
// [from, to].
func TestBracketProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		from := rapid.Float64Range(0.5, 5).Draw(t, "from")
		to := from * rapid.Float64Range(1.1, 20).Draw(t, "to/from")
		precision := rapid.Float64Range(0.01, 0.5).Draw(t, "precision")
		edge := from * rapid.Float64Range(0.5, 2*to/from).Draw(t, "edge/from")
		b, end, tried := search(NewBracket(from, to, precision), edge)
		for _, s := range tried {
			if s < from || s > to {
				t.Fatalf("tried %g outside [%g, %g]", s, from, to)
			}
		}
		if n := MaxSteps(from, to, precision); len(tried) > n {
			t.Fatalf("%d sizes tried, MaxSteps says at most %d (%v)", len(tried), n, tried)
		}
		switch {
		case edge <= from:
			if end != BracketFirstBad || b.Above != from || !math.IsNaN(b.Below) {
				t.Fatalf("edge %g ≤ from %g: end %q, bracket (%g, %g]", edge, from, end, b.Below, b.Above)
			}
		case edge > to:
			if end != BracketNoneUpTo || b.Below != to || !math.IsNaN(b.Above) {
				t.Fatalf("edge %g > to %g: end %q, bracket (%g, %g]", edge, to, end, b.Below, b.Above)
			}
		default:
			if end != BracketNarrow || !(b.Below < edge && edge <= b.Above) || (b.Above-b.Below)/b.Above > precision {
				t.Fatalf("edge %g: end %q, bracket (%g, %g], precision %g", edge, end, b.Below, b.Above, precision)
			}
		}
	})
}

// The known bracket (the recovery demand between 0 and the baseline)
// halves to the precision around the boundary, within MaxKnownSteps.
func TestKnownBracketProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		above := rapid.Float64Range(1, 1000).Draw(t, "above")
		precision := rapid.Float64Range(0.01, 0.5).Draw(t, "precision")
		edge := above * rapid.Float64Range(1e-6, 1).Draw(t, "edge/above") // below (0) is known good
		b, end, tried := search(NewKnownBracket(0, above, precision), edge)
		if w := b.Above - b.Below; end != BracketNarrow || !(b.Below < edge && edge <= b.Above) || (w > precision*b.Above && w > precision*above/4) {
			t.Fatalf("edge %g: end %q, bracket (%g, %g]", edge, end, b.Below, b.Above)
		}
		if n := MaxKnownSteps(0, above, precision); len(tried) > n {
			t.Fatalf("%d steps, MaxKnownSteps says %d", len(tried), n)
		}
	})
}

// The specimen's campaign at ρ = 0.4 (from 1.5 to 10, 10 %): 1.5 and 3
// bracket the model's 2.75, then bisection.
func TestBracketSpecimenSequence(t *testing.T) {
	k := ModelSmallestMultiplier(3, 0.4, 10, 1)
	if math.Abs(k-2.75) > 1e-9 {
		t.Fatalf("model k* = %g; want 2.75", k)
	}
	b, end, tried := search(NewBracket(1.5, 10, 0.1), k)
	want := []float64{1.5, 3, 2.25, 2.625, 2.8125}
	if end != BracketNarrow || len(tried) != len(want) {
		t.Fatalf("tried %v (%s); want %v", tried, end, want)
	}
	for i := range want {
		if tried[i] != want[i] {
			t.Fatalf("tried %v; want %v", tried, want)
		}
	}
	if b.Below != 2.625 || b.Above != 2.8125 {
		t.Errorf("bracket (%g, %g]", b.Below, b.Above)
	}
	if !math.IsInf(ModelSmallestMultiplier(3, 0.3, 10, 1), 1) {
		t.Error("A·ρ = 0.9 < 1 must have no trapping spike")
	}
	if got := ModelRecoveryDemand(100, 3); math.Abs(got-100.0/3) > 1e-12 {
		t.Errorf("λ_r = %g", got)
	}
}

// The model's smallest trapping capacity loss leaves exactly the patience
// behind: the demo's fault (ρ = 0.4, A = 3, Δ = 5 s, τ_out = 1 s) at a
// quarter of capacity traps, and the boundary lies below that loss; with
// A·ρ < 1 no loss traps.
func TestModelSmallestCapacityLoss(t *testing.T) {
	loss := ModelSmallestCapacityLoss(3, 0.4, 5, 1)
	if !(loss > 0 && loss < 0.75) {
		t.Fatalf("smallest trapping loss %g; want below the demo's 0.75", loss)
	}
	if w := faultPeakWait(3, 0.4, 1-loss, 5, 1); math.Abs(w-1) > 1e-6 {
		t.Errorf("the wait left at the boundary is %g s; want the patience, 1 s", w)
	}
	if w := faultPeakWait(3, 0.4, 0.25, 5, 1); math.Abs(w-3.4) > 0.05 {
		t.Errorf("the demo's fault leaves %g s; docs/model.md says 3.4 s", w)
	}
	if !math.IsInf(ModelSmallestCapacityLoss(3, 0.3, 5, 1), 1) {
		t.Error("A·ρ = 0.9 < 1 must have no trapping fault")
	}
	t.Logf("smallest trapping loss at ρ = 0.4: %.4f (C′/C = %.4f)", loss, 1-loss)
}

// A precision finer than a float can halve still ends the search, once
// the bracket's ends are adjacent floats.
func TestBracketEndsAtAdjacentFloats(t *testing.T) {
	b, end, tried := search(NewBracket(1.5, 10, 1e-17), 2.75)
	if end != BracketNarrow || len(tried) > 100 || !(b.Below < 2.75 && 2.75 <= b.Above) {
		t.Errorf("end %q after %d sizes, bracket (%g, %g]", end, len(tried), b.Below, b.Above)
	}
}
