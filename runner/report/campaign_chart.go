package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/trigger-test/trigger/analysis"
)

// The campaign map's colours: recovered cells in Okabe–Ito bluish green,
// trapped ones in vermillion, cells that could not tell in grey, cells
// whose trials could not tell P(trap) from the level (undecided) in
// reddish purple; the model's lines in black (planned A) and blue
// (measured A_fail).
var (
	colCellRecovered = rgb(0x00, 0x9E, 0x73)
	colCellTrapped   = rgb(0xD5, 0x5E, 0x00)
	colCellUnknown   = rgb(0x99, 0x99, 0x99)
	colCellUndecided = rgb(0xCC, 0x79, 0xA7)
	colModelPlanned  = rgb(0x33, 0x33, 0x33)
	colModelMeasured = rgb(0x00, 0x72, 0xB2)
)

// Sizes of the campaign's charts.
const (
	campaignChartWidth  = 7 * vg.Inch
	campaignChartHeight = 4.2 * vg.Inch
)

// CampaignMapSVG draws the campaign's trigger cells (ρ across, the
// searched size up, coloured by the side of the boundary they fell on)
// with the model's boundary over them: the trigger condition
// (k·ρ − 1)·Δ = patience (for a duration search Δ = patience/(k·ρ − 1))
// and the trap line ρ = 1/A, from the scenario's A and, when a trapped
// cell measured it, from the median A_fail (docs/model.md, "Mapping the
// boundary"). Trapping lies right of the trap line and above the curve.
func CampaignMapSVG(d analysis.CampaignDocument) (out []byte, err error) {
	defer recoverChart(&err)
	p := campaignPlot("“"+d.Scenario.Name+"”: which spikes trap, by baseline", "baseline utilization ρ", searchLabel(d))
	maxSize := d.To
	for _, side := range []struct {
		name  string
		col   color.RGBA
		shape draw.GlyphDrawer
		want  func(analysis.CampaignCell) bool
	}{
		{"recovered", colCellRecovered, draw.CircleGlyph{}, func(c analysis.CampaignCell) bool { return c.Trapped != nil && !*c.Trapped }},
		{"trapped", colCellTrapped, draw.PyramidGlyph{}, func(c analysis.CampaignCell) bool { return c.Trapped != nil && *c.Trapped }},
		// Trials spent without telling P(trap) from the level: not a
		// cell that failed to run.
		{"undecided", colCellUndecided, draw.BoxGlyph{}, func(c analysis.CampaignCell) bool { return c.Trapped == nil && undecided(c) }},
		{"could not tell", colCellUnknown, draw.CrossGlyph{}, func(c analysis.CampaignCell) bool { return c.Trapped == nil && !undecided(c) }},
	} {
		var pts plotter.XYs
		for _, c := range d.Cells {
			if c.Kind == analysis.CellTrigger && side.want(c) && finite(c.Size) && finite(c.Rho) {
				pts = append(pts, plotter.XY{X: c.Rho, Y: c.Size})
				maxSize = math.Max(maxSize, c.Size)
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: side.col, Radius: 4, Shape: side.shape}
		p.Add(sc)
		p.Legend.Add("cell: "+side.name, sc)
	}
	a := d.Scenario.AmplificationPlanned
	var afails []float64
	for _, b := range d.Baselines {
		if b.AFail != nil {
			afails = append(afails, *b.AFail)
		}
	}
	measured := analysis.Median(afails)
	// The measured model: A_fail and C as the cells measured them; a
	// baseline of nominal ρ is really at ρ·C/C_measured.
	scale, cLabel := 1.0, ""
	if m := analysis.Value(d.CapacityMeasuredPerS); m > 0 && d.Scenario.CapacityPerS > 0 {
		scale, cLabel = d.Scenario.CapacityPerS/m, fmt.Sprintf(", C = %.4g/s", m)
	}
	ymax := maxSize * 1.4 // room for the legend above the cells
	for _, m := range []struct {
		a, scale float64
		col      color.RGBA
		label    string
	}{
		{a, 1, colModelPlanned, fmt.Sprintf("model, planned A = %.3g", a)},
		{measured, scale, colModelMeasured, fmt.Sprintf("model, measured A_fail = %.3g%s", measured, cLabel)},
	} {
		if !finite(m.a) || m.a < 1 {
			continue
		}
		style := draw.LineStyle{Color: m.col, Width: 1.5, Dashes: []vg.Length{5, 3}}
		if m.col == colModelMeasured {
			style.Dashes = nil
		}
		curve := boundaryCurve(d, m.a, m.scale, ymax)
		if len(curve) > 1 {
			l, err := plotter.NewLine(curve)
			if err != nil {
				return nil, err
			}
			l.LineStyle = style
			p.Add(l)
			p.Legend.Add(m.label, l)
		}
		if rho := 1 / (m.a * m.scale); rho < 1 {
			trap, err := plotter.NewLine(plotter.XYs{{X: rho, Y: 0}, {X: rho, Y: ymax}})
			if err != nil {
				return nil, err
			}
			trap.LineStyle = style
			trap.LineStyle.Width = 1
			p.Add(trap)
		}
	}
	p.X.Min, p.X.Max = 0, 1.03
	p.Y.Min, p.Y.Max = 0, ymax
	return campaignSVG(p, "campaign map: "+d.Scenario.Name)
}

// undecided says a cell with odds spent its trials without telling its
// P(trap) from the level (side "undecided").
func undecided(c analysis.CampaignCell) bool {
	return c.Side == analysis.Undecided.String()
}

// boundaryCurve is the trigger condition at amplification a, where it
// traps, over the chart's nominal ρ (the service really at ρ·scale), below
// ymax.
func boundaryCurve(d analysis.CampaignDocument, a, scale, ymax float64) plotter.XYs {
	var pts plotter.XYs
	sc := d.Scenario
	from := 1 / (a * scale)
	for i := 0; i <= 200; i++ {
		nominal := from + (1-from)*float64(i)/200
		rho := nominal * scale
		if rho <= 0 || rho >= 1 || nominal >= 1 {
			continue
		}
		if y := sc.SmallestTrap(d.Search, a, rho); finite(y) && y <= ymax {
			pts = append(pts, plotter.XY{X: nominal, Y: y})
		}
	}
	return pts
}

// CampaignRecoverySVG draws λ_r against the baseline: each baseline's
// bracket (the highest demand seen to recover up to the lowest seen to
// stay failed), the model's C/A and the baselines' own demand λ = ρ·C. ok
// is false when no baseline measured λ_r.
func CampaignRecoverySVG(d analysis.CampaignDocument) (out []byte, ok bool, err error) {
	defer recoverChart(&err)
	var lo, hi plotter.XYs
	for _, b := range d.Baselines {
		if b.RecoveryDemandPerSLo != nil && b.RecoveryDemandPerSHi != nil {
			lo = append(lo, plotter.XY{X: b.Rho, Y: *b.RecoveryDemandPerSLo})
			hi = append(hi, plotter.XY{X: b.Rho, Y: *b.RecoveryDemandPerSHi})
		}
	}
	if len(lo) == 0 {
		return nil, false, nil
	}
	p := campaignPlot("“"+d.Scenario.Name+"”: the demand the failed service comes back at", "baseline utilization ρ", "first attempts per second")
	c := d.Scenario.CapacityPerS
	base, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: c}})
	if err != nil {
		return nil, false, err
	}
	base.LineStyle = draw.LineStyle{Color: colCellUnknown, Width: 1, Dashes: []vg.Length{2, 2}}
	p.Add(base)
	p.Legend.Add("the baseline's demand λ = ρ·C", base)
	for _, s := range []struct {
		pts   plotter.XYs
		col   color.RGBA
		shape draw.GlyphDrawer
		label string
	}{
		{lo, colCellRecovered, draw.CircleGlyph{}, "recovered at this demand"},
		{hi, colCellTrapped, draw.PyramidGlyph{}, "stayed failed at this demand"},
	} {
		sc, err := plotter.NewScatter(s.pts)
		if err != nil {
			return nil, false, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: 4, Shape: s.shape}
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	for _, b := range d.Baselines {
		if b.ModelRecoveryDemandPerS == nil {
			continue
		}
		m, err := plotter.NewLine(plotter.XYs{{X: b.Rho - 0.03, Y: *b.ModelRecoveryDemandPerS}, {X: b.Rho + 0.03, Y: *b.ModelRecoveryDemandPerS}})
		if err != nil {
			return nil, false, err
		}
		m.LineStyle = draw.LineStyle{Color: colModelMeasured, Width: 2}
		p.Add(m)
	}
	p.Legend.Add("model λ_r = C/A", func() plot.Thumbnailer {
		l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		l.LineStyle = draw.LineStyle{Color: colModelMeasured, Width: 2}
		return l
	}())
	p.X.Min, p.X.Max = 0, 1.03
	p.Y.Min, p.Y.Max = 0, c*1.25
	out, err = campaignSVG(p, "recovery demand: "+d.Scenario.Name)
	return out, err == nil, err
}

// campaignPlot is an empty plot in the reports' style.
func campaignPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = color.White
	_ = title // the page's heading says it; the SVG's <title> holds it
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(fontRegular, 10)
		a.Tick.Label.Font = font.From(fontRegular, 9)
	}
	p.Legend.TextStyle.Font = font.From(fontRegular, 9)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = 8, -4
	p.Legend.ThumbnailWidth = 18
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: colGrid, Width: 0.5}
	g.Horizontal = g.Vertical
	p.Add(g)
	return p
}

// campaignSVG renders p with a <title>.
func campaignSVG(p *plot.Plot, title string) ([]byte, error) {
	cv := vgsvg.NewWith(vgsvg.UseWH(campaignChartWidth, campaignChartHeight))
	p.Draw(draw.New(cv))
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: svg: %w", err)
	}
	return withTitleAndFonts(buf.Bytes(), title), nil
}

// searchLabel names the map's vertical axis.
func searchLabel(d analysis.CampaignDocument) string {
	switch d.Search {
	case "duration":
		return fmt.Sprintf("spike duration Δ (s) at ×%g", d.Scenario.Multiplier)
	case "capacity":
		return fmt.Sprintf("capacity a fault of %gs takes away (share of C)", d.Scenario.SpikeS)
	}
	return fmt.Sprintf("spike multiplier k for %gs", d.Scenario.SpikeS)
}
