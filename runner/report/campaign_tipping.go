package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/trigger-test/trigger/analysis"
)

// CampaignTippingSVG draws P(trap) against the searched size for every
// baseline with odds (campaign trials or --tipping; docs/model.md,
// "Trap probability"): each trigger cell's measured P(trap) with its
// Wilson 95 % interval as a bar, the tipping curve fitted to the trials,
// the model's P(trap) where it was computed (the model's curve), the level
// searched for and the boundary at it. Everything comes from campaign.json.
// ok is false when no baseline has odds.
func CampaignTippingSVG(d analysis.CampaignDocument) (out []byte, ok bool, err error) {
	defer recoverChart(&err)
	var withOdds []analysis.CampaignBaseline
	for _, b := range d.Baselines {
		if b.Odds != nil {
			withOdds = append(withOdds, b)
		}
	}
	if len(withOdds) == 0 {
		return nil, false, nil
	}
	p := campaignPlot("“"+d.Scenario.Name+"”: the odds of a trap, by size", searchLabel(d), "P(trap)")
	lo, hi := d.From, d.To
	for _, c := range d.Cells {
		if c.Kind == analysis.CellTrigger && finite(c.Size) && c.Size > 0 {
			lo, hi = math.Min(lo, c.Size), math.Max(hi, c.Size)
		}
	}
	level := withOdds[0].Odds.Level
	lv, err := plotter.NewLine(plotter.XYs{{X: lo, Y: level}, {X: hi, Y: level}})
	if err != nil {
		return nil, false, err
	}
	lv.LineStyle = draw.LineStyle{Color: colCellUnknown, Width: 1, Dashes: []vg.Length{2, 2}}
	p.Add(lv)
	p.Legend.Add(fmt.Sprintf("level P = %g", level), lv)
	one := len(withOdds) == 1
	for _, b := range withOdds {
		o, name := b.Odds, ""
		if !one {
			name = fmt.Sprintf(" (ρ = %.3g)", b.Rho)
		}
		var pts plotter.XYs
		var bars plotter.XYs // pairs: low end, high end
		for _, c := range d.Cells {
			if c.Kind != analysis.CellTrigger || c.Rho != b.Rho {
				continue
			}
			switch {
			case c.TrapProbability != nil && finite(c.TrapProbability.P):
				pts = append(pts, plotter.XY{X: c.Size, Y: c.TrapProbability.P})
				bars = append(bars, plotter.XY{X: c.Size, Y: c.TrapProbability.Lo}, plotter.XY{X: c.Size, Y: c.TrapProbability.Hi})
			case c.Trapped != nil && *c.Trapped:
				pts = append(pts, plotter.XY{X: c.Size, Y: 1})
			case c.Trapped != nil:
				pts = append(pts, plotter.XY{X: c.Size, Y: 0})
			}
		}
		for j := 0; j+1 < len(bars); j += 2 {
			bar, err := plotter.NewLine(plotter.XYs{bars[j], bars[j+1]})
			if err != nil {
				return nil, false, err
			}
			bar.LineStyle = draw.LineStyle{Color: colCellTrapped, Width: 1}
			p.Add(bar)
		}
		if len(pts) > 0 {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, false, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: colCellTrapped, Radius: 3.5, Shape: draw.CircleGlyph{}}
			p.Add(sc)
			p.Legend.Add("cells: measured P(trap), 95 % interval"+name, sc)
		}
		if f := o.Fit; f != nil {
			sizes, ps := analysis.TippingCurve(*f, lo, hi, 120)
			var xy plotter.XYs
			for j := range sizes {
				xy = append(xy, plotter.XY{X: sizes[j], Y: ps[j]})
			}
			if len(xy) > 1 {
				l, err := plotter.NewLine(xy)
				if err != nil {
					return nil, false, err
				}
				l.LineStyle = draw.LineStyle{Color: colCellTrapped, Width: 1.5}
				p.Add(l)
				p.Legend.Add("fitted tipping curve"+name, l)
			}
		}
		var model plotter.XYs
		for _, m := range o.ModelCurve {
			if finite(m.TrapProbability.P) {
				model = append(model, plotter.XY{X: m.Size, Y: m.TrapProbability.P})
			}
		}
		if len(model) > 0 {
			l, sc, err := plotter.NewLinePoints(model)
			if err != nil {
				return nil, false, err
			}
			l.LineStyle = draw.LineStyle{Color: colModelMeasured, Width: 1.5, Dashes: []vg.Length{5, 3}}
			sc.GlyphStyle = draw.GlyphStyle{Color: colModelMeasured, Radius: 2, Shape: draw.CircleGlyph{}}
			p.Add(l, sc)
			p.Legend.Add("model's P(trap)"+name, l)
		}
		if o.Boundary != nil {
			bl, err := plotter.NewLine(plotter.XYs{{X: *o.Boundary, Y: 0}, {X: *o.Boundary, Y: 1}})
			if err != nil {
				return nil, false, err
			}
			bl.LineStyle = draw.LineStyle{Color: colModelPlanned, Width: 1}
			p.Add(bl)
			p.Legend.Add(fmt.Sprintf("boundary at the level (%s)%s", o.Source, name), bl)
		}
	}
	p.X.Min, p.X.Max = lo*0.95, hi*1.05
	p.Y.Min, p.Y.Max = 0, 1.45 // room for the legend above
	out, err = campaignSVG(p, "tipping curve: "+d.Scenario.Name)
	return out, err == nil, err
}
