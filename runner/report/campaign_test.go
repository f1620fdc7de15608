package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// campaignFixture is the specimen's campaign as the model expects it
// (System A, C = 100/s, A = 3, Δ = 10 s, τ_out = 1 s): nothing traps at
// ρ = 0.3; at ρ = 0.4 the bracket (2.625, 2.8125] around 2.75, then λ_r
// in (32.5, 35] around C/A = 33.3.
func campaignFixture() analysis.CampaignDocument {
	yes, no := true, false
	n := analysis.Num
	d := analysis.CampaignDocument{
		Scenario: analysis.CampaignScenario{Name: "specimen", Hash: "0123456789abcdef", Target: "http://127.0.0.1:8080",
			CapacityPerS: 100, TimeoutS: 1, AmplificationPlanned: 3, Multiplier: 3, SpikeS: 10},
		Search: "multiplier", From: 1.5, To: 10, Precision: 0.1, Hysteresis: true,
		ExpectedSpike: &analysis.ExpectedSpikeSection{Multiplier: 1.2, DurationS: 10},
		StartedAt:     "2026-12-02T10:00:00Z", EndedAt: "2026-12-02T10:40:00Z",
		StoppedReason: "finished",
		Gate:          &analysis.CampaignGate{MinTriggerMargin: 2, Passed: true},
		// The cells measured C a little below the scenario's 100/s.
		CapacityMeasuredPerS: n(96),
	}
	i := 0
	cell := func(kind string, rho, size float64, hold *float64, v analysis.Verdict, trapped *bool, afail *float64) {
		d.Cells = append(d.Cells, analysis.CampaignCell{Index: i, Kind: kind, Rho: rho, DemandPerS: rho * 100, Size: size, Multiplier: size, SpikeS: 10,
			HoldDemandPerS: hold, Verdict: v, Trapped: trapped, AFail: afail, RecoveryS: n(12), Folder: "cell-" + string(rune('a'+i))})
		i++
	}
	for _, k := range []float64{1.5, 3, 6, 10} {
		cell(analysis.CellTrigger, 0.3, k, nil, analysis.VerdictRecovered, &no, nil)
	}
	d.Cells[3].Verdict, d.Cells[3].RecoveryS, d.Cells[3].ProjectedRecoveryS = analysis.VerdictMetastable, nil, n(378)
	cell(analysis.CellTrigger, 0.4, 1.5, nil, analysis.VerdictNoTrigger, &no, nil)
	cell(analysis.CellTrigger, 0.4, 3, nil, analysis.VerdictTrapped, &yes, n(2.96))
	cell(analysis.CellTrigger, 0.4, 2.25, nil, analysis.VerdictNoTrigger, &no, nil)
	cell(analysis.CellTrigger, 0.4, 2.625, nil, analysis.VerdictRecovered, &no, nil)
	cell(analysis.CellTrigger, 0.4, 2.8125, nil, analysis.VerdictTrapped, &yes, n(3.02))
	for _, h := range []struct {
		rate    float64
		trapped *bool
	}{{20, &no}, {30, &no}, {35, &yes}, {32.5, &no}} {
		cell(analysis.CellRecoveryDemand, 0.4, 2.8125, n(h.rate), analysis.VerdictTrapped, h.trapped, nil)
	}
	d.Baselines = []analysis.CampaignBaseline{
		{Rho: 0.3, DemandPerS: 30, SearchEnd: string(analysis.BracketNoneUpTo), TriggerMargin: n(10 / 1.2)},
		{Rho: 0.4, DemandPerS: 40, SmallestTrap: n(2.8125), SmallestTrapLo: n(2.625), SmallestTrapHi: n(2.8125), SearchEnd: string(analysis.BracketNarrow),
			ModelSmallestTrap: n(2.75), MeasuredModelSmallestTrap: n(2.75), AFail: n(2.99), TriggerMargin: n(2.625 / 1.2),
			RecoveryDemandPerS: n(32.5), RecoveryDemandPerSLo: n(32.5), RecoveryDemandPerSHi: n(35), ModelRecoveryDemandPerS: n(100 / 2.99)},
	}
	return d
}

// The campaign's text, against a golden file.
func TestCampaignTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCampaignText(&b, campaignFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "campaign.txt", b.Bytes())
}

// campaign.html holds the baselines' findings, the map with every trigger
// cell on its side and both model lines, the λ_r chart, and a link to
// every cell's report; a campaign without λ_r has no λ_r chart.
func TestCampaignHTML(t *testing.T) {
	d := campaignFixture()
	var b bytes.Buffer
	if err := WriteCampaignHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"(2.625, 2.812]×", "none up to 10×", "(32.5, 35]/s", "✓ gate: min_trigger_margin 2",
		`href="cell-a/report.html"`, "campaign map: specimen", "recovery demand: specimen", "model, planned A = 3", "model, measured A_fail = 2.99, C = 96/s"} {
		if !strings.Contains(page, want) {
			t.Errorf("campaign.html has no %q", want)
		}
	}
	if strings.Contains(page, "could not be drawn") {
		t.Error("a chart could not be drawn")
	}
	// The measured trap line sits at nominal ρ = (C_measured/C)/A_fail.
	if got, want := boundaryCurve(d, 2.99, 100.0/96, 100)[0].X, 1/(2.99*100/96); math.Abs(got-want) > 1e-9 {
		t.Errorf("the measured boundary starts at ρ = %g; want %g", got, want)
	}
	svg, err := CampaignMapSVG(d)
	if err != nil {
		t.Fatal(err)
	}
	// Every trigger cell is one glyph filled in its side's colour (and one
	// more in the legend).
	for col, n := range map[string]int{svgColour(colCellRecovered): 7 + 1, svgColour(colCellTrapped): 2 + 1} {
		if got := strings.Count(string(svg), "fill:"+col); got != n {
			t.Errorf("%d glyphs filled %s; want %d", got, col, n)
		}
	}
	d.Baselines[1].RecoveryDemandPerSLo, d.Baselines[1].RecoveryDemandPerSHi = nil, nil
	b.Reset()
	if err := WriteCampaignHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "recovery demand: specimen") {
		t.Error("a λ_r chart without λ_r")
	}
}
