package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// oddsFixture is a campaign with trials = 3 at level 0.5 at ρ = 0.4:
// far cells decided by two trials, one cell at 2.75 undecided (1 of 3),
// the boundary from that cell between 2.625 and 2.8125, the model's 2.78
// and its P(trap) at every cell.
func oddsFixture() analysis.CampaignDocument {
	d := campaignFixture()
	d.Hysteresis = false
	d.Trials, d.TrapProbability, d.Tipping = 3, 0.5, true
	n := analysis.Num
	yes, no := true, false
	d.Cells = nil
	for i, c := range []struct {
		size  float64
		k, of int
		side  string
		model int
	}{{1.5, 0, 2, "below", 0}, {3, 2, 2, "above", 200}, {2.25, 0, 2, "below", 0}, {2.625, 0, 2, "below", 3}, {2.8125, 2, 2, "above", 140}, {2.71875, 1, 3, "undecided", 31}} {
		p, m := analysis.NewProportion(c.k, c.of), analysis.NewProportion(c.model, 200)
		var trapped *bool
		switch c.side {
		case "above":
			trapped = &yes
		case "below":
			trapped = &no
		}
		d.Cells = append(d.Cells, analysis.CampaignCell{Index: i, Kind: analysis.CellTrigger, Rho: 0.4, DemandPerS: 40, Size: c.size, Multiplier: c.size, SpikeS: 10,
			Verdict: analysis.VerdictRecovered, Trapped: trapped, RecoveryS: n(12), Folder: "cell-x", Side: c.side, TrapProbability: &p, ModelTrapProbability: &m})
	}
	d.Baselines = d.Baselines[1:]
	b := &d.Baselines[0]
	b.RecoveryDemandPerS, b.RecoveryDemandPerSLo, b.RecoveryDemandPerSHi, b.ModelRecoveryDemandPerS = nil, nil, nil, nil
	b.SearchEnd = string(analysis.BracketAtLevel)
	b.Odds = &analysis.CampaignOdds{Level: 0.5, Boundary: n(2.71875), BoundaryLo: n(2.625), BoundaryHi: n(2.8125), Source: analysis.BoundaryFromCell,
		FitNote: analysis.FitSeparated, Trials: 13, Cells: 6, ModelBoundary: n(2.78), ModelSeconds: 3.5,
		ModelCurve: []analysis.ModelOddsPoint{{Size: 1.5, TrapProbability: analysis.NewProportion(0, 200)}, {Size: 2.75, TrapProbability: analysis.NewProportion(60, 200)},
			{Size: 2.8125, TrapProbability: analysis.NewProportion(140, 200)}, {Size: 10, TrapProbability: analysis.NewProportion(200, 200)}}}
	return d
}

// With trials the text and the page show each cell's measured and model
// P(trap) with their intervals, the boundary at the level with its
// interval beside the model's, and the page draws the tipping chart: the
// cells' interval bars, the model's curve and, once a fit stands, the
// fitted curve. Every figure is campaign.json's.
func TestCampaignOddsReports(t *testing.T) {
	d := oddsFixture()
	var txt bytes.Buffer
	if err := WriteCampaignText(&txt, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"side       P(trap)               model P(trap)", "1/3 0.33 (0.06–0.79)", "31/200 0.15 (0.11–0.21)", "undecided",
		"P(trap) = 0.5 at 2.719× (between: 2.625–2.812, cell) over 13 trials in 6 cells; model 2.78×", "no tipping curve fitted: " + analysis.FitSeparated} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text has no %q:\n%s", want, txt.String())
		}
	}
	var page bytes.Buffer
	if err := WriteCampaignHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tipping curve: specimen", "model&#39;s P(trap)", "2.719× (between: 2.625–2.812, cell)", "<td class=\"num\">2.78×</td>", "1/3 0.33 (0.06–0.79)", "140/200"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("campaign.html has no %q", want)
		}
	}
	svg, ok, err := CampaignTippingSVG(d)
	if err != nil || !ok {
		t.Fatalf("tipping chart: %v %v", ok, err)
	}
	if strings.Contains(string(svg), "fitted tipping curve") {
		t.Error("a fitted curve without a fit")
	}
	d.Baselines[0].Odds.Fit = &analysis.TippingFit{Intercept: -30, Slope: 30}
	if svg, _, _ = CampaignTippingSVG(d); !strings.Contains(string(svg), "fitted tipping curve") {
		t.Error("no fitted curve")
	}
	// A campaign without odds has no tipping chart and the old columns.
	if _, ok, _ := CampaignTippingSVG(campaignFixture()); ok {
		t.Error("a tipping chart without odds")
	}
}

// A cell whose trials could not tell P(trap) from the level is shown
// undecided on the page, as in the text, and drawn on the map with its
// own mark, not as a cell that could not tell; a cell whose trials could
// not tell at all stays a grey cross.
func TestCampaignHTMLUndecidedCell(t *testing.T) {
	d := oddsFixture()
	var page bytes.Buffer
	if err := WriteCampaignHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<td>undecided</td>") || strings.Contains(page.String(), "<td>could not tell</td>") {
		t.Errorf("campaign.html does not show the undecided cell as undecided:\n%s", page.String())
	}
	svg, err := CampaignMapSVG(d)
	if err != nil {
		t.Fatal(err)
	}
	// One glyph and its legend entry each.
	if got := strings.Count(string(svg), "fill:"+svgColour(colCellUndecided)); got != 2 {
		t.Errorf("%d glyphs filled %s; want 2", got, svgColour(colCellUndecided))
	}
	if !strings.Contains(string(svg), "cell: undecided") || strings.Contains(string(svg), "cell: could not tell") {
		t.Error("the map's legend does not name the undecided cell")
	}
	// A cell none of whose trials could tell has no side: a grey cross.
	d.Cells[5].Side, d.Cells[5].TrapProbability = "", nil
	if svg, _ = CampaignMapSVG(d); !strings.Contains(string(svg), "cell: could not tell") || strings.Contains(string(svg), "cell: undecided") {
		t.Error("a cell that could not tell is not a grey cross")
	}
}

// A tipping chart that cannot be drawn leaves a notice, as the map does.
func TestCampaignHTMLTippingChartError(t *testing.T) {
	d := oddsFixture()
	d.Baselines[0].Odds.Level = math.NaN()
	if _, _, err := CampaignTippingSVG(d); err == nil {
		t.Fatal("a level of NaN drew a chart")
	}
	var page bytes.Buffer
	if err := WriteCampaignHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "The tipping chart could not be drawn: ") {
		t.Error("campaign.html says nothing of the tipping chart it could not draw")
	}
}
