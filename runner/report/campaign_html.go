package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// CampaignHTMLFile is the campaign's page in its folder.
const CampaignHTMLFile = "campaign.html"

//go:embed campaign.html.tmpl
var campaignHTMLSource string

var campaignPage = template.Must(template.Must(template.New("campaign").Parse(campaignHTMLSource)).Parse(styleSource))

type campaignHTMLBaseline struct {
	Rho, Rate, Trap, Model, Measured, Recovery, ModelRecovery, Margin, End string
	Boundary, ModelBoundary                                                string
}

type campaignHTMLCell struct {
	Index                                               int
	Kind, Rho, Rate, Spike, Held, Verdict, VerdictClass string
	Side, Recovery, AFail, Folder                       string
	Odds, Model                                         string
}

// WriteCampaignHTML writes the campaign as one self-contained page (no
// network, no script): how it ended and its gate, what each baseline
// showed, the map of the cells with the model's boundary
// (CampaignMapSVG), λ_r against the baseline (CampaignRecoverySVG) and
// every cell with a link to its run's report. The map or the tipping
// chart that cannot be drawn leaves a note in its place.
func WriteCampaignHTML(w io.Writer, d analysis.CampaignDocument) error {
	unit := searchUnit(d.Search)
	data := struct {
		Title, Name, Search, From, To, Precision, Capacity, Patience, A, Started, Ended string
		Finished                                                                        bool
		Stopped                                                                         string
		Gate, GatePassed                                                                bool
		Margin, GateFailures                                                            string
		Baselines                                                                       []campaignHTMLBaseline
		Cells                                                                           []campaignHTMLCell
		Map, Recovery, Tipping                                                          template.HTML
		MapError, TippingError                                                          string
		Odds                                                                            bool
	}{
		Title: "trigger campaign “" + d.Scenario.Name + "”", Name: d.Scenario.Name, Search: d.Search,
		From: fmt.Sprintf("%g", d.From), To: fmt.Sprintf("%g", d.To), Precision: fmt.Sprintf("%g %%", 100*d.Precision),
		Capacity: fmt.Sprintf("%g", d.Scenario.CapacityPerS), Patience: shortSeconds(d.Scenario.TimeoutS), A: fmt.Sprintf("%.3g", d.Scenario.AmplificationPlanned),
		Started: d.StartedAt, Ended: d.EndedAt, Finished: d.StoppedReason == "finished", Stopped: d.StoppedReason,
		Odds: d.TrapProbability > 0,
	}
	if g := d.Gate; g != nil {
		data.Gate, data.GatePassed, data.Margin, data.GateFailures = true, g.Passed, fmt.Sprintf("%g", g.MinTriggerMargin), strings.Join(g.Failures, "; ")
	}
	for _, b := range d.Baselines {
		trap := "none up to " + fmt.Sprintf("%g%s", d.To, unit)
		switch {
		case b.SmallestTrap != nil && b.SmallestTrapLo == nil:
			trap = fmt.Sprintf("≤ %.4g%s", *b.SmallestTrapHi, unit)
		case b.SmallestTrap != nil:
			trap = fmt.Sprintf("(%.4g, %.4g]%s", *b.SmallestTrapLo, *b.SmallestTrapHi, unit)
		case !strings.HasPrefix(b.SearchEnd, string(analysis.BracketNoneUpTo)):
			trap = "not measured"
		}
		rec := "-"
		if b.RecoveryDemandPerSLo != nil && b.RecoveryDemandPerSHi != nil {
			rec = fmt.Sprintf("(%.4g, %.4g]/s", *b.RecoveryDemandPerSLo, *b.RecoveryDemandPerSHi)
		}
		model := orDash(b.ModelSmallestTrap, "%.4g"+unit)
		if b.ModelSmallestTrap == nil {
			model = "none (A·ρ < 1)"
		}
		data.Baselines = append(data.Baselines, campaignHTMLBaseline{
			Rho: fmt.Sprintf("%.3g", b.Rho), Rate: fmt.Sprintf("%.4g/s", b.DemandPerS), Trap: trap, Model: model,
			Measured: orDash(b.MeasuredModelSmallestTrap, "%.4g"+unit), Recovery: rec, ModelRecovery: orDash(b.ModelRecoveryDemandPerS, "%.4g/s"),
			Margin: orDash(b.TriggerMargin, "%.3g×"), End: b.SearchEnd + noteSuffix(b.Note),
			Boundary: oddsBoundary(b.Odds, unit), ModelBoundary: modelBoundary(b.Odds, unit),
		})
	}
	for _, c := range d.Cells {
		// With odds the side is the sequential rule's, as in the text:
		// an undecided cell spent its trials, it did not fail to run.
		side := sideWord(c.Trapped)
		if data.Odds && c.Side != "" {
			side = c.Side
		}
		data.Cells = append(data.Cells, campaignHTMLCell{Index: c.Index, Kind: c.Kind, Rho: fmt.Sprintf("%.3g", c.Rho), Rate: fmt.Sprintf("%.4g/s", c.DemandPerS),
			Spike: fmt.Sprintf("×%.4g for %gs", c.Multiplier, c.SpikeS), Held: orDash(c.HoldDemandPerS, "%.4g/s"),
			Verdict: string(c.Verdict), VerdictClass: verdictClass(c.Verdict), Side: side,
			Recovery: cellRecovery(c), AFail: orDash(c.AFail, "%.2f"), Folder: c.Folder,
			Odds: proportionText(c.TrapProbability), Model: proportionText(c.ModelTrapProbability)})
	}
	if svg, err := CampaignMapSVG(d); err != nil {
		data.MapError = err.Error()
	} else {
		data.Map = template.HTML(inlineSVG(svg)) // trusted: gonum escapes the SVG's text, the title is escaped
	}
	if svg, ok, err := CampaignTippingSVG(d); err != nil {
		data.TippingError = err.Error()
	} else if ok {
		data.Tipping = template.HTML(inlineSVG(svg))
	}
	if svg, ok, err := CampaignRecoverySVG(d); err == nil && ok {
		data.Recovery = template.HTML(inlineSVG(svg))
	}
	var buf bytes.Buffer
	if err := campaignPage.Execute(&buf, data); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err := buf.WriteTo(w)
	return err
}

func noteSuffix(n string) string {
	if n == "" {
		return ""
	}
	return "; " + n
}
