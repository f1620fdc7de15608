package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/vocab"
)

// newDocument is campaign.json before any cell.
func newDocument(test *convert.Test, now time.Time) analysis.CampaignDocument {
	s, c := test.Scenario, test.Scenario.Campaign
	plan := analysis.Plan(test.Plan)
	doc := analysis.CampaignDocument{
		Scenario: analysis.CampaignScenario{Name: s.Name, File: s.File, Hash: s.Hash, Target: plan.Scenario.Target,
			CapacityPerS: s.Service.Capacity, TimeoutS: plan.Scenario.PatienceS, AmplificationPlanned: plan.Amplification.Predicted,
			Multiplier: s.Load.Spike.Multiplier, SpikeS: s.Load.Spike.Duration.Seconds(), Law: DeclaredLaw(plan)},
		Search: c.Search.String(), From: c.From, To: c.To, Precision: c.Precision, Hysteresis: c.Hysteresis,
		StartedAt: now.UTC().Format(time.RFC3339),
		Cells:     []analysis.CampaignCell{},
		Baselines: []analysis.CampaignBaseline{},
	}
	if e := s.ExpectedSpike; e != nil {
		doc.ExpectedSpike = &analysis.ExpectedSpikeSection{Multiplier: e.Multiplier, DurationS: e.Duration.Seconds()}
	}
	return doc
}

// summarize fills baseline i's bracket, measured A_fail and the model's
// boundaries from the cells so far.
func (cp *campaign) summarize(i int, br analysis.Bracket) {
	b, d := &cp.doc.Baselines[i], &cp.doc
	b.SmallestTrap, b.SmallestTrapHi = analysis.Num(br.Above), analysis.Num(br.Above)
	b.SmallestTrapLo = nil
	if !math.IsNaN(br.Above) {
		b.SmallestTrapLo = analysis.Num(br.Below)
	}
	var afails, capacities []float64
	for _, c := range d.Cells {
		if c.Rho == b.Rho && c.Kind == analysis.CellTrigger && c.Trapped != nil && *c.Trapped && c.AFail != nil {
			afails = append(afails, *c.AFail)
		}
		if c.Kind == analysis.CellTrigger && c.CapacityPerS != nil {
			capacities = append(capacities, *c.CapacityPerS)
		}
	}
	b.AFail = analysis.Num(analysis.Median(afails))
	d.CapacityMeasuredPerS = analysis.Num(analysis.Median(capacities))
	b.ModelSmallestTrap = analysis.Num(cp.modelBoundary(d.Scenario.AmplificationPlanned, b.Rho))
	b.MeasuredModelSmallestTrap = nil
	if b.AFail != nil {
		b.MeasuredModelSmallestTrap = analysis.Num(cp.modelBoundary(*b.AFail, b.Rho*cp.capacityScale()))
	}
	b.TriggerMargin = nil
	if expected := cp.expectedSize(); expected > 0 {
		if known := cp.largestRecovered(b.Rho); !math.IsNaN(known) {
			b.TriggerMargin = analysis.Num(known / expected)
		}
	}
	cp.summarizeOdds(i)
}

// largestRecovered is the largest size a trigger cell at rho was seen to
// come back from (recovered, or never triggered); NaN when none was. A
// metastable cell is on the survivable side of the boundary, but its
// service was still failing when the run ended: the gate's margin never
// rests on a recovery nobody saw.
func (cp *campaign) largestRecovered(rho float64) float64 {
	known := math.NaN()
	for _, c := range cp.doc.Cells {
		if c.Kind == analysis.CellTrigger && c.Rho == rho && (c.Verdict == analysis.VerdictRecovered || c.Verdict == analysis.VerdictNoTrigger) {
			if math.IsNaN(known) || c.Size > known {
				known = c.Size
			}
		}
	}
	return known
}

// capacityScale is C_scenario/C_measured: a baseline of nominal ρ is
// really at ρ·capacityScale(); 1 while no cell measured C.
func (cp *campaign) capacityScale() float64 {
	if m := analysis.Value(cp.doc.CapacityMeasuredPerS); m > 0 && cp.doc.Scenario.CapacityPerS > 0 {
		return cp.doc.Scenario.CapacityPerS / m
	}
	return 1
}

// modelBoundary is the model's smallest trapping size at rho with
// amplification a.
func (cp *campaign) modelBoundary(a, rho float64) float64 {
	return cp.doc.Scenario.SmallestTrap(cp.doc.Search, a, rho)
}

// expectedSize is expected_spike's size in the search's unit; 0 without.
func (cp *campaign) expectedSize() float64 {
	e := cp.doc.ExpectedSpike
	switch {
	case e == nil:
		return 0
	case cp.scenario.Campaign.Search == vocab.SearchDuration:
		return e.DurationS
	case cp.scenario.Campaign.Search == vocab.SearchCapacity:
		return 0 // a spike is no capacity loss
	}
	return e.Multiplier
}

// summarizeRecovery fills baseline i's λ_r from its bracket: the highest
// demand seen to recover, bracketed by the lowest seen to stay failed.
func (cp *campaign) summarizeRecovery(i int, br analysis.Bracket) {
	b := &cp.doc.Baselines[i]
	if br.Tried == 0 {
		return
	}
	b.RecoveryDemandPerS = analysis.Num(br.Below)
	b.RecoveryDemandPerSLo, b.RecoveryDemandPerSHi = analysis.Num(br.Below), analysis.Num(br.Above)
	a, c := cp.doc.Scenario.AmplificationPlanned, cp.doc.Scenario.CapacityPerS
	if b.AFail != nil {
		a = *b.AFail
	}
	if m := analysis.Value(cp.doc.CapacityMeasuredPerS); m > 0 {
		c = m
	}
	b.ModelRecoveryDemandPerS = analysis.Num(analysis.ModelRecoveryDemand(c, a))
}

// finish sets the end time and judges min_trigger_margin: it passes when
// every baseline is known to survive that many times expected_spike.
func (cp *campaign) finish() {
	d := &cp.doc
	d.EndedAt = cp.opts.Now().UTC().Format(time.RFC3339)
	m := cp.scenario.Gate.MinTriggerMargin
	if m <= 0 {
		return
	}
	g := &analysis.CampaignGate{MinTriggerMargin: m, Passed: true}
	if d.StoppedReason != ReasonFinished {
		g.Passed = false
		g.Failures = append(g.Failures, "the campaign did not finish: "+d.StoppedReason)
	}
	for _, b := range d.Baselines {
		switch {
		case b.TriggerMargin == nil:
			g.Passed = false
			g.Failures = append(g.Failures, fmt.Sprintf("ρ = %.3g: the margin over expected_spike is not measured (%s)", b.Rho, b.SearchEnd))
		case *b.TriggerMargin < m:
			g.Passed = false
			g.Failures = append(g.Failures, fmt.Sprintf("ρ = %.3g: survives %.3g× expected_spike, below min_trigger_margin %g", b.Rho, *b.TriggerMargin, m))
		}
	}
	d.Gate = g
	if !g.Passed {
		cp.outcome = max(cp.outcome, GateFailed)
	}
}

// write rewrites campaign.json and campaign.html atomically; a page that
// cannot be written is a note, not the campaign's end.
func (cp *campaign) write() error {
	err := report.WriteFileAtomic(cp.opts.OutDir, File, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cp.doc)
	})
	if err != nil {
		return err
	}
	if err := report.WriteFileAtomic(cp.opts.OutDir, report.CampaignHTMLFile, func(w io.Writer) error {
		return report.WriteCampaignHTML(w, cp.doc)
	}); err != nil {
		cp.logf("campaign: %v", err)
	}
	return nil
}

// DeclaredLaw is the scenario's latency law, nil when it declares none.
func DeclaredLaw(plan analysis.Document) *analysis.LatencyLaw {
	if l := plan.LatencyLaw; l != nil && l.Source == analysis.LawDeclared {
		return l
	}
	return nil
}
