package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Layout of the chart, in points.
const (
	chartMargin  = vg.Length(6)
	titleHeight  = vg.Length(22)
	legendWidth  = vg.Length(168)
	legendGap    = vg.Length(10)
	panelSpacing = vg.Length(8)
)

// Draw draws the chart onto c: the title across the top, the panels
// stacked with their time axes aligned, each panel's legend to its right.
func (ch *Chart) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	title := text.Style{Color: color.Black, Font: font.From(fontBold, 12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	c.FillText(title, vg.Point{X: c.Center().X, Y: c.Max.Y - chartMargin}, fitText(title, ch.Title, c.Max.X-c.Min.X-2*chartMargin))

	area := draw.Crop(c, chartMargin, -(chartMargin + legendWidth + legendGap), chartMargin, -(chartMargin + titleHeight))
	var total float64
	for _, pn := range ch.panels {
		total += pn.weight
	}
	height := area.Max.Y - area.Min.Y - panelSpacing*vg.Length(len(ch.panels)-1)
	canvases := make([]draw.Canvas, len(ch.panels))
	top := area.Max.Y
	for i, pn := range ch.panels {
		h := height * vg.Length(pn.weight/total)
		canvases[i] = area
		canvases[i].Min.Y, canvases[i].Max.Y = top-h, top
		top -= h + panelSpacing
	}
	ch.alignX(canvases)
	for i, pn := range ch.panels {
		pn.plot.Draw(canvases[i])
		data := pn.plot.DataCanvas(canvases[i])
		lg := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + legendGap, Y: canvases[i].Min.Y},
			Max: vg.Point{X: c.Max.X - chartMargin, Y: data.Max.Y},
		}}
		pn.legend.Draw(lg)
	}
}

// alignX crops the panels' canvases so that their data areas start and end
// at the same x: the y axes' labels differ in width from panel to panel.
func (ch *Chart) alignX(cs []draw.Canvas) {
	var left, right vg.Length
	for i, pn := range ch.panels {
		d := pn.plot.DataCanvas(cs[i])
		left = max(left, d.Min.X-cs[i].Min.X)
		right = max(right, cs[i].Max.X-d.Max.X)
	}
	for i, pn := range ch.panels {
		d := pn.plot.DataCanvas(cs[i])
		cs[i] = draw.Crop(cs[i], left-(d.Min.X-cs[i].Min.X), -(right - (cs[i].Max.X - d.Max.X)), 0, 0)
	}
}

// WriteSVG writes the chart as SVG, ChartWidth × ChartHeight points. Every
// path of a series carries the class "series-<name>" (the Series*
// constants), the chart's title is the SVG's <title>, and text falls back
// to Arial/Helvetica (metric-compatible) where Liberation Sans is missing.
func (ch *Chart) WriteSVG(w io.Writer) error {
	b, err := ch.svg()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("chart: svg: %w", err)
	}
	return nil
}

// WritePNG writes the chart as PNG, 1200 × 700 pixels (ChartDPI).
func (ch *Chart) WritePNG(w io.Writer) (err error) {
	defer recoverChart(&err)
	cv := vgimg.NewWith(vgimg.UseWH(ChartWidth, ChartHeight), vgimg.UseDPI(ChartDPI))
	ch.Draw(draw.New(cv))
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(w); err != nil {
		return fmt.Errorf("chart: png: %w", err)
	}
	return nil
}

// svg renders the chart and decorates the SVG gonum writes.
func (ch *Chart) svg() (out []byte, err error) {
	defer recoverChart(&err)
	cv := vgsvg.NewWith(vgsvg.UseWH(ChartWidth, ChartHeight))
	ch.Draw(draw.New(cv))
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: svg: %w", err)
	}
	return ch.decorate(buf.Bytes()), nil
}

// recoverChart turns a panic of the plotting library (it panics on what it
// cannot draw) into an error: a report must never take the run down.
func recoverChart(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("chart: %v", r)
	}
}

var (
	svgOpenTag = regexp.MustCompile(`<svg[^>]*>`)
	svgPath    = regexp.MustCompile(`<path d="[^"]*" style="[^"]*"`)
	svgStroke  = regexp.MustCompile(`stroke:(#[0-9A-F]{6})`)
	svgXMLNS   = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
)

// fitText cuts s, with an ellipsis, to the longest start that fits width
// in style st: a long verdict must not run off the chart (the SVG's
// <title> and the reports keep it whole).
func fitText(st text.Style, s string, width vg.Length) string {
	if st.Width(s) <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest fitting prefix has length in [lo, hi)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if st.Width(string(r[:mid])+"…") <= width {
			lo = mid
		} else {
			hi = mid
		}
	}
	return strings.TrimRight(string(r[:lo]), " ,;:") + "…"
}

// decorate adds the title, the series classes and the font fallbacks.
func (ch *Chart) decorate(svg []byte) []byte {
	svg = svgPath.ReplaceAllFunc(withTitleAndFonts(svg, ch.Title), func(p []byte) []byte {
		m := svgStroke.FindSubmatch(p)
		if m == nil {
			return p
		}
		class, ok := ch.classes[string(m[1])]
		if !ok {
			return p
		}
		return append([]byte(`<path class="`+seriesClassPrefix+class+`"`), p[len("<path"):]...)
	})
	return svg
}

// withTitleAndFonts gives an SVG gonum drew a <title> and font fallbacks
// (metric-compatible families for Liberation Sans).
func withTitleAndFonts(svg []byte, title string) []byte {
	if loc := svgOpenTag.FindIndex(svg); loc != nil {
		t := "\n<title>" + html.EscapeString(title) + "</title>"
		svg = append(svg[:loc[1]:loc[1]], append([]byte(t), svg[loc[1]:]...)...)
	}
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// inlineSVG makes the SVG fit for a place inside an HTML page: no XML
// prolog or comment, no namespace declarations (HTML puts <svg> in the SVG
// namespace by itself), and a class for the page's CSS.
func inlineSVG(svg []byte) string {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	svg = svgXMLNS.ReplaceAll(svg, nil)
	svg = bytes.Replace(svg, []byte("<svg"), []byte(`<svg class="chart" role="img"`), 1)
	return string(svg)
}

// svgColour is a colour as gonum's SVG writer spells it.
func svgColour(c color.RGBA) string {
	return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)
}
