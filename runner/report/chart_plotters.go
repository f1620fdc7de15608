package report

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/trigger-test/trigger/analysis"
)

// series is one line of the chart: a polyline through (xs[i], ys[i]) that
// breaks where a value is unknown (NaN), so gaps in Prometheus data show as
// gaps, not as straight lines across them.
type series struct {
	name  string // legend text
	class string // CSS class given to its paths in the SVG (seriesClassPrefix + class)
	xs    []float64
	ys    []float64
	style draw.LineStyle
}

var (
	_ plot.Plotter     = (*series)(nil)
	_ plot.DataRanger  = (*series)(nil)
	_ plot.Thumbnailer = (*series)(nil)
)

// Plot draws the series on the plot's data canvas.
func (s *series) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	var lines [][]vg.Point
	var cur []vg.Point
	for i, x := range s.xs {
		y := s.ys[i]
		if !finite(x) || !finite(y) {
			if len(cur) > 0 {
				lines = append(lines, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, vg.Point{X: trX(x), Y: trY(y)})
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	for _, l := range lines {
		if len(l) == 1 { // a lone known second: a short tick so it is visible
			l = []vg.Point{{X: l[0].X - 1, Y: l[0].Y}, {X: l[0].X + 1, Y: l[0].Y}}
		}
		c.StrokeLines(s.style, c.ClipLinesXY(envelope(l))...)
	}
}

// envelope thins a polyline to what a point of width shows: of the points
// that fall within one point (1/72 in) of the x axis it keeps the first,
// the lowest, the highest and the last, in order, so peaks and dips stay
// drawn and a timeline of hours draws in the time of minutes.
func envelope(l []vg.Point) []vg.Point {
	if len(l) <= 4 {
		return l
	}
	out := make([]vg.Point, 0, len(l))
	for i := 0; i < len(l); {
		col := math.Floor(float64(l[i].X))
		j := i
		lo, hi := i, i
		for j < len(l) && math.Floor(float64(l[j].X)) == col {
			if l[j].Y < l[lo].Y {
				lo = j
			}
			if l[j].Y > l[hi].Y {
				hi = j
			}
			j++
		}
		keep := []int{i, lo, hi, j - 1}
		slices.Sort(keep)
		for k, idx := range keep {
			if k == 0 || idx != keep[k-1] {
				out = append(out, l[idx])
			}
		}
		i = j
	}
	return out
}

// DataRange is the range of the known points.
func (s *series) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range s.xs {
		y := s.ys[i]
		if !finite(x) || !finite(y) {
			continue
		}
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail draws the legend's sample of the line.
func (s *series) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(s.style, c.Min.X, y, c.Max.X, y)
}

// known says whether the series has at least one point to draw.
func (s *series) known() bool {
	for i, x := range s.xs {
		if finite(x) && finite(s.ys[i]) {
			return true
		}
	}
	return false
}

// band shades one phase of the run, [from, to) seconds, across the whole
// height of a panel.
type band struct {
	name     analysis.Phase
	from, to float64
	fill     color.Color
}

var (
	_ plot.Plotter     = band{}
	_ plot.Thumbnailer = band{}
)

// Plot fills the band's part of the data canvas.
func (b band) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	x0, x1 := trX(b.from), trX(b.to)
	x0, x1 = max(x0, c.Min.X), min(x1, c.Max.X)
	if x1 <= x0 {
		return
	}
	c.FillPolygon(b.fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// Thumbnail draws the legend's swatch of the phase.
func (b band) Thumbnail(c *draw.Canvas) {
	h := (c.Max.Y - c.Min.Y) * 0.35
	y := c.Center().Y
	c.FillPolygon(b.fill, []vg.Point{{X: c.Min.X, Y: y - h}, {X: c.Max.X, Y: y - h}, {X: c.Max.X, Y: y + h}, {X: c.Min.X, Y: y + h}})
}

// vline marks one moment (the spike's start and end, the verdict) with a
// vertical line across a panel and, when label is set, the label written
// upwards along the line's left side, ending near the panel's top.
type vline struct {
	x     float64
	label string
	style draw.LineStyle
	text  text.Style
}

var _ plot.Plotter = vline{}

// Plot draws the line and its label.
func (v vline) Plot(c draw.Canvas, plt *plot.Plot) {
	if !finite(v.x) {
		return
	}
	trX, _ := plt.Transforms(&c)
	x := trX(v.x)
	if !c.ContainsX(x) {
		return
	}
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
	if v.label == "" {
		return
	}
	sty := v.text
	sty.Rotation = math.Pi / 2
	sty.XAlign = draw.XRight
	sty.YAlign = draw.YBottom
	c.FillText(sty, vg.Point{X: x - 2, Y: c.Max.Y - 4}, v.label)
}

// note writes a line of text in the middle of a panel (an empty one).
type note struct{ text string }

var _ plot.Plotter = note{}

// Plot writes the note.
func (n note) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := text.Style{Color: colSpike, Font: font.From(fontRegular, 12), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	c.FillText(sty, c.Center(), n.text)
}

// corner is a small note in the top left corner of a panel.
type corner struct{ text string }

var _ plot.Plotter = corner{}

// Plot writes the note.
func (n corner) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := text.Style{Color: colSpike, Font: font.From(fontRegular, 8), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	c.FillText(sty, vg.Point{X: c.Min.X + 4, Y: c.Max.Y - 4}, n.text)
}

// hline is a horizontal reference line (the client timeout τ_out) that
// counts in the panel's y range so it is always in view.
type hline struct {
	name  string
	class string
	y     float64
	style draw.LineStyle
}

var (
	_ plot.Plotter     = hline{}
	_ plot.DataRanger  = hline{}
	_ plot.Thumbnailer = hline{}
)

// Plot draws the line across the data canvas.
func (h hline) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(h.y)
	if !c.ContainsY(y) {
		return
	}
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// DataRange puts the line's value in the y range; x is left to the others.
func (h hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

// Thumbnail draws the legend's sample of the line.
func (h hline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// niceTicks puts at most n+1 (and about n) labelled ticks at multiples of 1, 2 or 5 × 10^k,
// with an unlabelled minor tick halfway between: denser than gonum's
// default, so values can be read off the chart.
type niceTicks struct{ n int }

// Ticks returns the ticks between lo and hi.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) || hi <= lo {
		return nil
	}
	n := float64(max(t.n, 1))
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/n)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		// At most n+1 labels; the slack matches the loop's below, which
		// labels an end that rounding put a hair inside the range.
		if math.Floor((hi-lo)/(m*mag)+1e-6) <= n {
			step = m * mag
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []plot.Tick
	for i := math.Ceil(lo/step*2 - 1e-9); i/2*step <= hi+step*1e-9; i++ {
		v := i / 2 * step
		if math.Mod(i, 2) != 0 {
			out = append(out, plot.Tick{Value: v})
			continue
		}
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'f', decimals, 64)})
	}
	return out
}

// blankTicks keeps another ticker's positions (so grid lines and ticks line
// up across panels) but drops its labels, for panels above the bottom one.
type blankTicks struct{ plot.Ticker }

// Ticks returns the wrapped ticks without labels.
func (b blankTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := b.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
