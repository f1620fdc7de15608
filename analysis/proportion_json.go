package analysis

import (
	"encoding/json"
	"math"
)

// proportionJSON is Proportion as JSON holds it: p null when no trial
// counted (0 of 0), every figure rounded (RoundFigure).
type proportionJSON struct {
	Count int      `json:"count"`
	Of    int      `json:"of"`
	P     *float64 `json:"p"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
}

// finiteFigure is x rounded, or nil when it is NaN or infinite.
func finiteFigure(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return Num(RoundFigure(x))
}

// figureOr is *x, or def when x is nil.
func figureOr(x *float64, def float64) float64 {
	if x == nil {
		return def
	}
	return *x
}

// MarshalJSON writes the proportion with p null when it is NaN (0 of 0),
// and any other number that is not finite as null too,
// which encoding/json would refuse, so that any document holding one
// encodes; the figures are rounded as every document's are.
func (p Proportion) MarshalJSON() ([]byte, error) {
	return json.Marshal(proportionJSON{Count: p.Count, Of: p.Of, P: finiteFigure(p.P), Lo: finiteFigure(p.Lo), Hi: finiteFigure(p.Hi)})
}

// UnmarshalJSON reads a proportion MarshalJSON wrote: a null figure is NaN.
func (p *Proportion) UnmarshalJSON(b []byte) error {
	var in proportionJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*p = Proportion{Count: in.Count, Of: in.Of, P: figureOr(in.P, math.NaN()), Lo: figureOr(in.Lo, math.NaN()), Hi: figureOr(in.Hi, math.NaN())}
	return nil
}
