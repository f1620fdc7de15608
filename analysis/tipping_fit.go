package analysis

import "math"

// OddsPoint is what the trials at one size showed: Trapped of Trials
// (trials that could not tell are left out), and the side the sequential
// rule put the cell on (docs/model.md, "Trap probability").
type OddsPoint struct {
	Size    float64
	Trapped int
	Trials  int
	Side    Side
}

// TippingFit is a tipping curve fitted to trials at several sizes:
// P(trap | size) = 1/(1 + exp(−(Intercept + Slope·ln size))), by maximum
// likelihood (docs/model.md, "Trap probability", the tipping curve).
// VarIntercept, VarSlope and CovInterceptSlope are the estimates'
// covariance, the inverse of the Fisher information at the fit.
type TippingFit struct {
	Intercept         float64 `json:"intercept"`
	Slope             float64 `json:"slope"`
	VarIntercept      float64 `json:"var_intercept"`
	VarSlope          float64 `json:"var_slope"`
	CovInterceptSlope float64 `json:"cov_intercept_slope"`
	// Sizes and Trials are how many sizes and trials the fit rests on.
	Sizes  int `json:"sizes"`
	Trials int `json:"trials"`
}

// P is the fitted probability of a trap at size (> 0).
func (f TippingFit) P(size float64) float64 {
	return sigmoid(f.Intercept + f.Slope*math.Log(size))
}

// Crossing is the size at which the fitted curve crosses level (0 < level
// < 1), with its 95 % interval by the delta method in ln size: for
// x* = (logit(level) − a)/b, Var x* = (Var a + 2·x*·Cov(a, b) + x*²·Var b)/b²,
// and the interval is exp(x* ± 1.96·√Var x*). NaN for a level outside
// (0, 1) or a slope that is not positive.
func (f TippingFit) Crossing(level float64) (size, lo, hi float64) {
	if !(level > 0 && level < 1) || !(f.Slope > 0) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	x := (math.Log(level/(1-level)) - f.Intercept) / f.Slope
	v := (f.VarIntercept + 2*x*f.CovInterceptSlope + x*x*f.VarSlope) / (f.Slope * f.Slope)
	sd := math.Sqrt(math.Max(v, 0))
	return math.Exp(x), math.Exp(x - z95*sd), math.Exp(x + z95*sd)
}

// Reasons a tipping curve has no fit.
const (
	FitNoTrials   = "no trial could tell"
	FitOneSize    = "the trials are at one size: a curve needs two"
	FitNoTrap     = "no trial trapped: the curve is below every size tried"
	FitAllTrapped = "every trial trapped: the curve is above every size tried"
	FitSeparated  = "every trial at or below one size recovered and every one at or above it trapped (separation): the curve's slope has no finite estimate"
	FitReversed   = "the traps are at the smaller sizes: no rising curve fits"
	FitNoConverge = "the fit did not converge"
	// FitNotRising: the penalized fit is flat or falls (a trap or two at
	// the largest size among as many clean trials as at the smaller).
	FitNotRising = "the penalized fit's curve does not rise with size"
)

// FitTipping fits a tipping curve to the points by Newton's method on the
// binomial log likelihood (iteratively reweighted least squares). It
// returns the reason instead when the data cannot fix the curve: no trials,
// one size, no trap or no clean trial, or separated outcomes (every clean
// trial at a size no larger than every trapped one, where the likelihood
// grows without end as the slope does), or traps only below clean trials.
func FitTipping(points []OddsPoint) (TippingFit, string) {
	var pts []OddsPoint
	k, n := 0, 0
	maxClean, minTrap := math.Inf(-1), math.Inf(1)
	minClean, maxTrap := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		if p.Trials <= 0 || !(p.Size > 0) || math.IsInf(p.Size, 0) {
			continue
		}
		p.Trapped = min(max(p.Trapped, 0), p.Trials)
		pts = append(pts, p)
		k, n = k+p.Trapped, n+p.Trials
		if p.Trapped < p.Trials {
			maxClean, minClean = math.Max(maxClean, p.Size), math.Min(minClean, p.Size)
		}
		if p.Trapped > 0 {
			minTrap, maxTrap = math.Min(minTrap, p.Size), math.Max(maxTrap, p.Size)
		}
	}
	sizes := map[float64]bool{}
	for _, p := range pts {
		sizes[p.Size] = true
	}
	switch {
	case n == 0:
		return TippingFit{}, FitNoTrials
	case len(sizes) < 2:
		return TippingFit{}, FitOneSize
	case k == 0:
		return TippingFit{}, FitNoTrap
	case k == n:
		return TippingFit{}, FitAllTrapped
	case maxClean <= minTrap:
		return TippingFit{}, FitSeparated
	case maxTrap <= minClean:
		return TippingFit{}, FitReversed
	}
	f, ok := newtonFit(pts, k, n, false)
	if !ok {
		return TippingFit{}, FitNoConverge
	}
	f.Sizes = len(sizes)
	if f.Slope <= 0 {
		return TippingFit{}, FitReversed
	}
	return f, ""
}

// FitTippingPenalized fits a tipping curve by Firth's penalized
// likelihood, l(a, b) + ½·ln det I(a, b) (Jeffreys' prior): its estimates
// stay finite where the trials are separated and the plain fit has none,
// pulled towards a flatter curve the fewer the trials. It stands in for
// FitTipping on separated trials (BoundaryAtLevel). The reason is given
// instead when there are no trials, one size, or no trap or no clean
// trial at all (the crossing would lie outside every size tried).
func FitTippingPenalized(points []OddsPoint) (TippingFit, string) {
	f, note := FitTipping(points)
	if note != FitSeparated && note != FitNoConverge {
		return f, note
	}
	var pts []OddsPoint
	k, n := 0, 0
	sizes := map[float64]bool{}
	for _, p := range points {
		if p.Trials <= 0 || !(p.Size > 0) || math.IsInf(p.Size, 0) {
			continue
		}
		p.Trapped = min(max(p.Trapped, 0), p.Trials)
		pts, k, n = append(pts, p), k+p.Trapped, n+p.Trials
		sizes[p.Size] = true
	}
	f, ok := newtonFit(pts, k, n, true)
	switch {
	case !ok:
		return TippingFit{}, FitNoConverge
	case f.Slope <= 0:
		return TippingFit{}, FitNotRising
	}
	f.Sizes = len(sizes)
	return f, ""
}

// newtonFit maximizes the binomial log likelihood of the curve (a, b) in
// ln size by Newton's method with step halving, or with firth its
// penalized form (the score's terms h_i·(½ − p_i), h_i the hat matrix's
// diagonal w_i·x_iᵀI⁻¹x_i); the covariance is I⁻¹ at the estimate.
//
// It has converged when the score (the objective's gradient) is at most
// fitScoreTol per trial in each of its two terms, or a step moves (a, b)
// by less than 1e-10 of their size. A step is halved until the objective
// rises, and on while it rises further (the penalized fit's step, with I
// for its Hessian, can overshoot the optimum to nearly as far the other
// side); one that still does not after 40 halvings is not taken and the
// search stops there, converged only when the Newton decrement
// √(gᵀI⁻¹g) (how far the optimum is, in standard errors) is under
// fitStallTol. ok is false when it does not converge in 200 steps.
func newtonFit(pts []OddsPoint, k, n int, firth bool) (TippingFit, bool) {
	f := TippingFit{Trials: n}
	// Start flat at the overall rate (an even one for the penalized fit).
	a, b := 0.0, 0.0
	if k > 0 && k < n {
		a = math.Log(float64(k) / float64(n-k))
	}
	objective := func(a, b float64) float64 {
		if !firth {
			return logLikelihood(pts, a, b)
		}
		_, _, _, det := information(pts, a, b)
		return logLikelihood(pts, a, b) + 0.5*math.Log(det)
	}
	done := func(a, b float64) (TippingFit, bool) {
		i00, i01, i11, det := information(pts, a, b)
		f.Intercept, f.Slope = a, b
		f.VarIntercept, f.VarSlope, f.CovInterceptSlope = i11/det, i00/det, -i01/det
		return f, finite(a) && finite(b) && finite(f.VarSlope) && det > 0
	}
	scoreTol := fitScoreTol * float64(max(n, 1))
	ll := objective(a, b)
	for range 200 {
		i00, i01, i11, det := information(pts, a, b)
		if !(det > 0) {
			return f, false
		}
		v00, v01, v11 := i11/det, -i01/det, i00/det
		g0, g1 := 0.0, 0.0
		for _, p := range pts {
			x := math.Log(p.Size)
			q := sigmoid(a + b*x)
			r := float64(p.Trapped) - float64(p.Trials)*q
			if firth {
				h := float64(p.Trials) * q * (1 - q) * (v00 + 2*x*v01 + x*x*v11)
				r += h * (0.5 - q)
			}
			g0, g1 = g0+r, g1+r*x
		}
		if math.Abs(g0) <= scoreTol && math.Abs(g1) <= scoreTol {
			return done(a, b)
		}
		da, db := v00*g0+v01*g1, v01*g0+v11*g1
		// Halve the step until the objective rises.
		step := 1.0
		na, nb := a+da, b+db
		nll := objective(na, nb)
		for h := 0; !(nll > ll) && h < 40; h++ {
			step /= 2
			na, nb = a+step*da, b+step*db
			nll = objective(na, nb)
		}
		if !(nll > ll) {
			// No step along the direction helps: (a, b) is as good as
			// the objective's precision can tell.
			f, ok := done(a, b)
			return f, ok && math.Sqrt(math.Max(g0*da+g1*db, 0)) < fitStallTol
		}
		// The penalized fit's step (I⁻¹ for its Hessian) can overshoot
		// the optimum to nearly as far the other side, over and over:
		// halve on while that rises further.
		for range 40 {
			ha, hb := a+step/2*da, b+step/2*db
			hll := objective(ha, hb)
			if !(hll > nll) {
				break
			}
			step, na, nb, nll = step/2, ha, hb, hll
		}
		a, b, ll = na, nb, nll
		if math.Abs(step*da) < 1e-10*(1+math.Abs(a)) && math.Abs(step*db) < 1e-10*(1+math.Abs(b)) {
			return done(a, b)
		}
	}
	return f, false
}

// Tolerances of newtonFit: the score per trial at which it has converged,
// and the Newton decrement (standard errors) under which a search that
// can no longer improve the objective has.
const (
	fitScoreTol = 1e-8
	fitStallTol = 1e-4
)

// information is the Fisher information of (a, b) at the curve, and its
// determinant.
func information(pts []OddsPoint, a, b float64) (i00, i01, i11, det float64) {
	for _, p := range pts {
		x := math.Log(p.Size)
		q := sigmoid(a + b*x)
		w := float64(p.Trials) * q * (1 - q)
		i00, i01, i11 = i00+w, i01+w*x, i11+w*x*x
	}
	return i00, i01, i11, i00*i11 - i01*i01
}

// logLikelihood is the binomial log likelihood of the points under the
// curve (a, b) in ln size.
func logLikelihood(pts []OddsPoint, a, b float64) float64 {
	ll := 0.0
	for _, p := range pts {
		z := a + b*math.Log(p.Size)
		// ln σ(z) = −ln(1 + e^−z); ln(1 − σ(z)) = −ln(1 + e^z).
		ll -= float64(p.Trapped)*softplus(-z) + float64(p.Trials-p.Trapped)*softplus(z)
	}
	return ll
}

// softplus is ln(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid is 1/(1 + e^−z).
func sigmoid(z float64) float64 {
	return 1 / (1 + math.Exp(-z))
}

// Sources of a boundary at a level of P(trap).
const (
	// BoundaryFromFit: where the fitted tipping curve crosses the level,
	// the interval by the delta method.
	BoundaryFromFit = "fit"
	// BoundaryFromPenalizedFit: the same from Firth's penalized fit, on
	// trials separated at one size (FitTippingPenalized).
	BoundaryFromPenalizedFit = "penalized fit"
	// BoundaryFromCell: a cell whose trials could not tell it from the
	// level; the interval is the largest size below and the smallest above.
	BoundaryFromCell = "cell"
	// BoundaryFromBracket: the smallest size above the level, the
	// interval from the largest size below it.
	BoundaryFromBracket = "bracket"
)

// OddsBoundary is a baseline's boundary at a level of P(trap): Size with
// its interval (Lo, Hi) and where they come from (docs/model.md,
// "Mapping the boundary"); NaN where unknown.
type OddsBoundary struct {
	Size, Lo, Hi float64
	Source       string
	// Fit is the tipping curve when the points fix one; FitNote says why
	// not otherwise.
	Fit     *TippingFit
	FitNote string
}

// BoundaryAtLevel is the boundary at level from the points of one
// baseline. The fitted curve's crossing stands when the trials fix a
// rising curve and its crossing is finite; on separated trials (a search
// whose cells were each decided one way, or one mixed cell between clean
// and trapped ones) or a plain fit that did not converge the penalized
// fit's crossing stands, its interval from that fit's covariance (FitNote
// says so, or why the penalized fit failed too); otherwise a cell the
// sequential rule left undecided is the boundary's own estimate, bracketed
// by the largest size below the level and the smallest above; otherwise
// the boundary is the smallest size above, bracketed from the largest
// below (Size NaN when no cell was above).
func BoundaryAtLevel(points []OddsPoint, level float64) OddsBoundary {
	out := OddsBoundary{Size: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	below, above, undecided := math.NaN(), math.NaN(), math.NaN()
	for _, p := range points {
		if p.Trials <= 0 {
			continue
		}
		switch p.Side {
		case Below:
			if math.IsNaN(below) || p.Size > below {
				below = p.Size
			}
		case Above:
			if math.IsNaN(above) || p.Size < above {
				above = p.Size
			}
		default:
			undecided = p.Size
		}
	}
	fit, note := FitTipping(points)
	source := BoundaryFromFit
	if note == FitSeparated || note == FitNoConverge {
		pf, pnote := FitTippingPenalized(points)
		if pnote == "" {
			fit, source = pf, BoundaryFromPenalizedFit
			out.FitNote, note = note+"; the penalized fit stands in", ""
		} else {
			note += "; the penalized fit failed too: " + pnote
		}
	}
	if note == "" {
		if s, lo, hi := fit.Crossing(level); finite(s) && finite(lo) && finite(hi) {
			out.Fit = &fit
			out.Size, out.Lo, out.Hi, out.Source = s, lo, hi, source
			return out
		}
		note = "the fitted curve's crossing of the level is not finite"
	}
	out.FitNote = note
	out.Lo, out.Hi = below, above
	switch {
	case !math.IsNaN(undecided):
		out.Size, out.Source = undecided, BoundaryFromCell
	case !math.IsNaN(above):
		out.Size, out.Source = above, BoundaryFromBracket
	default:
		out.Source = BoundaryFromBracket
	}
	return out
}

// TippingCurve samples a fit at n sizes spread log-evenly over [from, to]
// (n ≥ 2), for a chart.
func TippingCurve(f TippingFit, from, to float64, n int) (sizes, ps []float64) {
	if !(from > 0 && to > from) || n < 2 {
		return nil, nil
	}
	for i := range n {
		s := from * math.Pow(to/from, float64(i)/float64(n-1))
		sizes, ps = append(sizes, s), append(ps, f.P(s))
	}
	return sizes, ps
}
