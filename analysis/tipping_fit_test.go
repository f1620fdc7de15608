package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// On trials drawn from a known tipping curve the fit recovers its slope
// and its crossing of 0.5 within four standard errors, and the crossing's
// interval holds the true crossing's neighbourhood.
func TestPropertyTippingFitRecoversTheCurve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		slope := rapid.Float64Range(3, 15).Draw(t, "slope")
		s50 := rapid.Float64Range(1.5, 8).Draw(t, "s50")
		level := rapid.Float64Range(0.2, 0.8).Draw(t, "level")
		seed := rapid.Uint64().Draw(t, "seed")
		rng := rand.New(rand.NewPCG(seed, 1))
		truth := TippingFit{Intercept: -slope * math.Log(s50), Slope: slope}
		var pts []OddsPoint
		for i := range 7 {
			size := s50 * math.Exp((float64(i)-3)*0.6/slope)
			p := OddsPoint{Size: size, Trials: 300}
			for range p.Trials {
				if rng.Float64() < truth.P(size) {
					p.Trapped++
				}
			}
			pts = append(pts, p)
		}
		f, note := FitTipping(pts)
		if note != "" {
			t.Fatalf("no fit: %s", note)
		}
		if d := math.Abs(f.Slope - slope); d > 4*math.Sqrt(f.VarSlope) {
			t.Fatalf("slope %g ± %g; truth %g", f.Slope, math.Sqrt(f.VarSlope), slope)
		}
		want, _, _ := truth.Crossing(level)
		got, lo, hi := f.Crossing(level)
		// The interval is 1.96 sd wide each way: twice that is four.
		if w := math.Log(hi / lo); math.Abs(math.Log(got/want)) > w || !(lo < got && got < hi) {
			t.Fatalf("crossing of %g at %g in (%g, %g); truth %g", level, got, lo, hi, want)
		}
	})
}

// Data that cannot fix a curve give no fit and the reason.
func TestTippingFitDegenerate(t *testing.T) {
	for name, c := range map[string]struct {
		pts  []OddsPoint
		want string
	}{
		"none":      {nil, FitNoTrials},
		"one size":  {[]OddsPoint{{Size: 2, Trapped: 1, Trials: 3}, {Size: 2, Trapped: 2, Trials: 3}}, FitOneSize},
		"all clean": {[]OddsPoint{{Size: 2, Trials: 3}, {Size: 3, Trials: 2}}, FitNoTrap},
		"all traps": {[]OddsPoint{{Size: 2, Trapped: 3, Trials: 3}, {Size: 3, Trapped: 2, Trials: 2}}, FitAllTrapped},
		"separated": {[]OddsPoint{{Size: 1.5, Trials: 2}, {Size: 3, Trapped: 2, Trials: 2}, {Size: 2.25, Trials: 2}}, FitSeparated},
		// One mixed cell between clean and trapped ones is still separated
		// (quasi-completely): the slope grows without end.
		"quasi-separated": {[]OddsPoint{{Size: 2, Trials: 2}, {Size: 2.5, Trapped: 1, Trials: 3}, {Size: 3, Trapped: 2, Trials: 2}}, FitSeparated},
		"reversed":        {[]OddsPoint{{Size: 2, Trapped: 2, Trials: 2}, {Size: 3, Trials: 2}}, FitReversed},
	} {
		if f, note := FitTipping(c.pts); note != c.want {
			t.Errorf("%s: fit %+v, note %q; want %q", name, f, note, c.want)
		}
	}
}

// Overlapping outcomes fix a curve: its crossing lies between the sizes,
// and a level off the curve's range is refused.
func TestTippingFitOverlap(t *testing.T) {
	pts := []OddsPoint{{Size: 2, Trials: 4}, {Size: 2.5, Trapped: 1, Trials: 3}, {Size: 2.75, Trapped: 2, Trials: 3}, {Size: 3, Trapped: 4, Trials: 4}}
	f, note := FitTipping(pts)
	if note != "" {
		t.Fatal(note)
	}
	s, lo, hi := f.Crossing(0.5)
	if !(2.5 < s && s < 2.75 && lo < s && s < hi) {
		t.Errorf("crossing %g in (%g, %g)", s, lo, hi)
	}
	if s, _, _ := f.Crossing(1); !math.IsNaN(s) {
		t.Errorf("crossing of 1 at %g", s)
	}
}

// The boundary at a level: the fit's crossing when there is one; on
// separated trials the penalized fit's; else (no fit at all) an
// undecided cell between the largest size below and the smallest above;
// else the bracket.
func TestBoundaryAtLevel(t *testing.T) {
	fit := BoundaryAtLevel([]OddsPoint{{Size: 2, Trials: 4, Side: Below}, {Size: 2.5, Trapped: 1, Trials: 3}, {Size: 2.75, Trapped: 2, Trials: 3}, {Size: 3, Trapped: 4, Trials: 4, Side: Above}}, 0.5)
	if fit.Source != BoundaryFromFit || fit.Fit == nil || !(fit.Lo < fit.Size && fit.Size < fit.Hi) {
		t.Errorf("fit boundary %+v", fit)
	}
	// The bench's campaign (bench/campaign-trials): two trials a cell,
	// clean up to ×2.75, trapped from ×2.875.
	sep := BoundaryAtLevel([]OddsPoint{{Size: 2, Trials: 2, Side: Below}, {Size: 4, Trapped: 2, Trials: 2, Side: Above}, {Size: 3, Trapped: 2, Trials: 2, Side: Above},
		{Size: 2.5, Trials: 2, Side: Below}, {Size: 2.75, Trials: 2, Side: Below}, {Size: 2.875, Trapped: 2, Trials: 2, Side: Above}}, 0.5)
	if sep.Source != BoundaryFromPenalizedFit || sep.Fit == nil || math.Abs(sep.Size-2.8115) > 0.001 || math.Abs(sep.Lo-2.685) > 0.001 || math.Abs(sep.Hi-2.944) > 0.001 ||
		!strings.HasPrefix(sep.FitNote, FitSeparated) {
		t.Errorf("separated boundary %+v", sep)
	}
	// Three trials at two sizes: the penalized fit is saturated, P = 1/6
	// at 2.5 and 3/4 at 2.625 ((k + h/2)/(n + h), h = 1 at each), and it
	// crosses ½ where the logit line between them does.
	x0, x1 := math.Log(2.5), math.Log(2.625)
	l0, l1 := math.Log(1.0/5), math.Log(3)
	want := math.Exp(x0 - l0*(x1-x0)/(l1-l0))
	cell := BoundaryAtLevel([]OddsPoint{{Size: 2.5, Trials: 2, Side: Below}, {Size: 2.625, Trapped: 1, Trials: 1}}, 0.5)
	if cell.Source != BoundaryFromPenalizedFit || math.Abs(cell.Size-want) > 1e-6 || !(cell.Lo < cell.Size && cell.Size < cell.Hi) {
		t.Errorf("saturated boundary %+v; want %g", cell, want)
	}
	// Sizes no float can tell apart: the penalized fit fails too, the
	// note says so, and the bracket stands.
	near := BoundaryAtLevel([]OddsPoint{{Size: 2, Trials: 2, Side: Below}, {Size: 2 + 1e-14, Trapped: 2, Trials: 2, Side: Above}}, 0.5)
	if near.Source != BoundaryFromBracket || near.Fit != nil || near.FitNote != FitSeparated+"; the penalized fit failed too: "+FitNoConverge {
		t.Errorf("near boundary %+v", near)
	}
	// An undecided cell with no fit at all is the boundary's estimate.
	und := BoundaryAtLevel([]OddsPoint{{Size: 2.5, Trapped: 1, Trials: 1}, {Size: 2.5, Trapped: 0, Trials: 1}}, 0.5)
	if und.Source != BoundaryFromCell || und.Size != 2.5 || und.FitNote != FitOneSize {
		t.Errorf("cell boundary %+v", und)
	}
	br := BoundaryAtLevel([]OddsPoint{{Size: 3, Trapped: 2, Trials: 2, Side: Above}, {Size: 4, Trapped: 2, Trials: 2, Side: Above}}, 0.5)
	if br.Source != BoundaryFromBracket || br.Size != 3 || !math.IsNaN(br.Lo) || br.Hi != 3 || br.FitNote != FitAllTrapped {
		t.Errorf("bracket boundary %+v", br)
	}
	none := BoundaryAtLevel([]OddsPoint{{Size: 1.5, Trials: 2, Side: Below}, {Size: 3, Trials: 2, Side: Below}}, 0.5)
	if !math.IsNaN(none.Size) || none.Lo != 3 || !math.IsNaN(none.Hi) {
		t.Errorf("no boundary %+v", none)
	}
}

// Where the plain fit stands, the penalized one is close to it on many
// trials; on separated trials it is finite and rises; where no fit can
// place a crossing (no trap at all) it gives the reason too.
func TestTippingFitPenalized(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	truth := TippingFit{Intercept: -10 * math.Log(2.8), Slope: 10}
	var pts []OddsPoint
	for i := range 7 {
		p := OddsPoint{Size: 2.8 * math.Exp((float64(i)-3)*0.06), Trials: 400}
		for range p.Trials {
			if rng.Float64() < truth.P(p.Size) {
				p.Trapped++
			}
		}
		pts = append(pts, p)
	}
	ml, _ := FitTipping(pts)
	pf, note := FitTippingPenalized(pts)
	if note != "" || math.Abs(pf.Slope-ml.Slope) > 0.1*math.Sqrt(ml.VarSlope) {
		t.Errorf("penalized %+v (%s); plain %+v", pf, note, ml)
	}
	sep, note := FitTippingPenalized([]OddsPoint{{Size: 2, Trials: 2}, {Size: 3, Trapped: 2, Trials: 2}})
	if note != "" || !(sep.Slope > 0) {
		t.Errorf("separated: %+v (%s)", sep, note)
	}
	if _, note := FitTippingPenalized([]OddsPoint{{Size: 2, Trials: 2}, {Size: 3, Trials: 2}}); note != FitNoTrap {
		t.Errorf("no trap: %q", note)
	}
	// One trap in five at the largest size, none in one at the smaller:
	// the penalized odds are ¼ at both ((k + ½)/(n + 1)), a flat curve.
	if f, note := FitTippingPenalized([]OddsPoint{{Size: 1.5, Trials: 1}, {Size: 2, Trials: 2}, {Size: 2, Trapped: 1, Trials: 3}}); note != FitNotRising {
		t.Errorf("flat: %+v, %q", f, note)
	}
}

// Two sizes with one trial each, clean then trapped: the penalized fit is
// saturated, P = ¼ and ¾ ((k + ½)/2), so (a, b) = (−3 ln 3, 2 ln 3/ln 2)
// exactly; the search reaches it though its steps there are of the
// order of the floats' noise, and the boundary is the fit's.
func TestTippingFitPenalizedTwoTrials(t *testing.T) {
	pts := []OddsPoint{{Size: 2, Trials: 1, Side: Undecided}, {Size: 4, Trapped: 1, Trials: 1, Side: Undecided}}
	f, note := FitTippingPenalized(pts)
	// logit ¼ = −ln 3 at ln 2, ln 3 at ln 4: b = 2 ln 3/ln 2, a = −3 ln 3.
	a, b := -3*math.Log(3), 2*math.Log(3)/math.Log(2)
	if note != "" || math.Abs(f.Intercept-a) > 1e-6 || math.Abs(f.Slope-b) > 1e-6 {
		t.Fatalf("fit %+v (%q); want (%g, %g)", f, note, a, b)
	}
	bd := BoundaryAtLevel(pts, 0.5)
	if bd.Source != BoundaryFromPenalizedFit || math.Abs(bd.Size-2*math.Sqrt2) > 1e-6 {
		t.Errorf("boundary %+v", bd)
	}
}

// On any few trials at a few sizes that the plain fit cannot fix (or does
// not converge on), the penalized fit converges where its score vanishes,
// and a plain fit that stands has a vanishing score too.
func TestPropertyTippingFitConverges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.IntRange(2, 5).Draw(t, "sizes")
		var pts []OddsPoint
		for i := range m {
			n := rapid.IntRange(1, 4).Draw(t, "trials")
			size := 1.5 + 0.125*float64(i) + 0.125*float64(rapid.IntRange(0, 3).Draw(t, "gap"))*float64(i)
			pts = append(pts, OddsPoint{Size: size, Trials: n, Trapped: rapid.IntRange(0, n).Draw(t, "trapped")})
		}
		plain, pnote := FitTipping(pts)
		if pnote == "" {
			if g0, g1 := fitScore(pts, plain, false); math.Abs(g0) > 1e-6 || math.Abs(g1) > 1e-6 {
				t.Fatalf("plain fit %+v: score (%g, %g)", plain, g0, g1)
			}
		}
		if pnote != FitSeparated && pnote != FitNoConverge {
			return
		}
		f, note := FitTippingPenalized(pts)
		if note == FitNotRising {
			return
		}
		if note != "" {
			t.Fatalf("penalized fit: %s (plain: %s)", note, pnote)
		}
		if g0, g1 := fitScore(pts, f, true); math.Abs(g0) > 1e-6 || math.Abs(g1) > 1e-6 {
			t.Fatalf("penalized fit %+v: score (%g, %g)", f, g0, g1)
		}
	})
}

// fitScore is the (penalized) log likelihood's gradient at the fit.
func fitScore(pts []OddsPoint, f TippingFit, firth bool) (g0, g1 float64) {
	i00, i01, i11, det := information(pts, f.Intercept, f.Slope)
	v00, v01, v11 := i11/det, -i01/det, i00/det
	for _, p := range pts {
		x := math.Log(p.Size)
		q := sigmoid(f.Intercept + f.Slope*x)
		r := float64(p.Trapped) - float64(p.Trials)*q
		if firth {
			r += float64(p.Trials) * q * (1 - q) * (v00 + 2*x*v01 + x*x*v11) * (0.5 - q)
		}
		g0, g1 = g0+r, g1+r*x
	}
	return g0, g1
}

// A curve sampled for a chart spans the range log-evenly.
func TestTippingCurve(t *testing.T) {
	sizes, ps := TippingCurve(TippingFit{Intercept: -math.Log(2) * 10, Slope: 10}, 1, 4, 3)
	if len(sizes) != 3 || sizes[1] != 2 || math.Abs(ps[1]-0.5) > 1e-12 {
		t.Errorf("sizes %v, ps %v", sizes, ps)
	}
}
