package report

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Legend geometry, in points.
const (
	legendFontSize  = vg.Length(9)   // the entries' text
	legendThumb     = vg.Length(22)  // width of an entry's line sample
	legendEntryGap  = vg.Length(1.5) // between two entries
	legendTextInset = vg.Length(3)   // between the sample and the text
	// legendFontSlack is the share of the legend's width its text is
	// wrapped to: a browser without Liberation Sans draws the SVG's text
	// in its fallback font, which can be wider (DejaVu Sans is).
	legendFontSlack = 0.85
)

// chartLegend lists a panel's series beside it, top down: each entry's
// sample on its first line and its text to the right, wrapped at spaces
// onto more lines when it is wider than the legend (a label that names a
// scenario's retry layer can be any length). gonum's own legend makes every
// entry as tall as its tallest and never wraps.
type chartLegend struct {
	entries []legendEntry
}

// legendEntry is one line sample with its text.
type legendEntry struct {
	text  string
	thumb plot.Thumbnailer
}

// Add appends an entry.
func (l *chartLegend) Add(name string, thumb plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{text: name, thumb: thumb})
}

// legendStyle is the entries' text style.
func legendStyle() text.Style {
	return text.Style{Color: color.Black, Font: font.From(fontRegular, legendFontSize), Handler: plot.DefaultTextHandler}
}

// Draw draws the entries from the top of c down; entries that do not fit
// above c's bottom are left out rather than drawn over the next panel.
func (l *chartLegend) Draw(c draw.Canvas) {
	sty := legendStyle()
	ext := sty.FontExtents()
	textX := c.Min.X + legendThumb + legendTextInset
	top := c.Max.Y
	for _, e := range l.entries {
		lines := wrapText(sty, e.text, (c.Max.X-textX)*legendFontSlack)
		if top-ext.Height*vg.Length(len(lines)) < c.Min.Y {
			return
		}
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: top - ext.Height},
			Max: vg.Point{X: c.Min.X + legendThumb, Y: top},
		}}
		e.thumb.Thumbnail(&icon)
		for _, ln := range lines {
			c.FillText(sty, vg.Point{X: textX, Y: top - ext.Ascent}, ln)
			top -= ext.Height
		}
		top -= legendEntryGap
	}
}

// wrapText breaks s at spaces into lines no wider than width; a word wider
// than width gets a line of its own.
func wrapText(sty text.Style, s string, width vg.Length) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		try := w
		if cur != "" {
			try = cur + " " + w
		}
		if cur != "" && sty.Width(try) > width {
			lines = append(lines, cur)
			try = w
		}
		cur = try
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
