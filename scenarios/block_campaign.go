package scenarios

import (
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/vocab"
)

// Campaign is what `trigger campaign` maps (block "campaign"): at each
// baseline, the smallest spike that traps the service, found by whole
// trigger tests (docs/model.md, "Mapping the boundary").
type Campaign struct {
	// Baselines are utilizations ρ (λ = ρ·C) at which to search; Rates the
	// same as first attempts per second. Exactly one is given; Rates is
	// filled from Baselines (and the other way) once C is known.
	Baselines []float64
	Rates     []float64
	// Search is what varies: the spike's multiplier k (Δ fixed at the
	// load block's), its duration Δ (k fixed), or the capacity a fault
	// takes away (its duration fixed).
	Search vocab.SearchKind
	// From is the first, safe size; To the largest tried: a multiplier
	// (×), a duration in seconds, or a capacity loss 1 − C′/C.
	From, To float64
	// CapacityVariable, for a capacity search, names the variable each
	// cell reads the scenario with, set to the capacity left C′/C: the
	// fault's commands and its capacity take it from there.
	CapacityVariable string
	// Precision ends a search when the bracket is this narrow, relative to
	// its upper end: (trapped − recovered)/trapped ≤ Precision.
	Precision float64
	// Hysteresis: after a trapped cell, find the demand at which the
	// failed service recovers (λ_r).
	Hysteresis bool
	// MaxDuration bounds the whole campaign's wall time.
	MaxDuration time.Duration
	// Rest is the pause without load before each cell after the first.
	Rest time.Duration
	// Trials is the most trials a trigger cell takes (1: one run decides
	// it); TrapProbability the level of P(trap) searched for, 0 < level
	// < 1 (docs/model.md, "Trap probability"). With Trials > 1 a cell is
	// repeated until the sequential rule tells it from the level.
	Trials          int
	TrapProbability float64
}

// ExpectedSpike is what production brings (block "expected_spike"): the
// gate's min_trigger_margin compares the smallest trapping trigger with it.
type ExpectedSpike struct {
	Multiplier float64
	Duration   time.Duration
}

// Defaults and bounds of the campaign block.
const (
	DefaultCampaignPrecision   = 0.1
	DefaultCampaignMaxDuration = 2 * time.Hour
	DefaultCampaignRest        = 10 * time.Second
	// MaxCampaignBaselines bounds how many baselines one campaign maps.
	MaxCampaignBaselines = 20
	// MinCampaignPrecision is the narrowest bracket a campaign asks for:
	// no run measures a boundary to a millionth.
	MinCampaignPrecision = 1e-6
	// DefaultCampaignTrapProbability is the level of P(trap) a campaign
	// with trials searches for: the boundary where a spike traps half the
	// time.
	DefaultCampaignTrapProbability = 0.5
	// MaxCampaignTrials bounds the trials of one cell.
	MaxCampaignTrials = 100
)

// campaignSchema and expectedSpikeSchema: attribute names are the
// snake_case of Campaign's and ExpectedSpike's fields.
var (
	campaignSchema = &hcl.BodySchema{Attributes: attrs("baselines", "rates", "search", "from", "to", "precision",
		"hysteresis", "max_duration", "rest", "capacity_variable", "trials", "trap_probability")}
	expectedSpikeSchema = &hcl.BodySchema{Attributes: attrs("multiplier", "duration")}
)

// decodeCampaign decodes the campaign block. from and to are numbers for a
// multiplier search and durations ("5s") for a duration search.
func (d *decoder) decodeCampaign(blk *hcl.Block) *Campaign {
	b := d.open("campaign", "campaign", blk.Body, blk.DefRange, schemaOf("campaign"))
	if sb, ok := blk.Body.(*hclsyntax.Body); ok {
		d.campaignBody = sb.SrcRange
	}
	c := &Campaign{
		Baselines:        b.numList("baselines"),
		Rates:            b.numList("rates"),
		Search:           enum(b, "search", "campaign search", vocab.SearchMultiplier, vocab.SearchKindNames(), vocab.ParseSearchKind),
		Precision:        b.num("precision", DefaultCampaignPrecision),
		Hysteresis:       b.boolean("hysteresis", false),
		MaxDuration:      b.duration("max_duration", DefaultCampaignMaxDuration),
		Rest:             b.duration("rest", DefaultCampaignRest),
		CapacityVariable: b.str("capacity_variable", ""),
		Trials:           b.integer("trials", 1),
		TrapProbability:  b.num("trap_probability", DefaultCampaignTrapProbability),
	}
	if c.Search == vocab.SearchDuration {
		c.From = b.duration("from", 0).Seconds()
		c.To = b.duration("to", 0).Seconds()
	} else {
		c.From, c.To = b.num("from", 0), b.num("to", 0)
	}
	b.require("from", `the first, safe size, e.g. from = 1.5 (a multiplier) or from = "5s" (a duration).`)
	b.require("to", `the largest size tried, e.g. to = 10.`)
	return c
}

// decodeExpectedSpike decodes the expected_spike block.
func (d *decoder) decodeExpectedSpike(blk *hcl.Block) *ExpectedSpike {
	b := d.open("expected_spike", "expected_spike", blk.Body, blk.DefRange, schemaOf("expected_spike"))
	if sb, ok := blk.Body.(*hclsyntax.Body); ok {
		d.expectedBody = sb.SrcRange
	}
	e := &ExpectedSpike{Multiplier: b.num("multiplier", 0), Duration: b.duration("duration", 0)}
	b.require("multiplier", `k, the largest spike production brings, e.g. multiplier = 2.`)
	b.require("duration", `Δ, how long production's spike lasts, e.g. duration = "30s".`)
	return e
}

// numList reads a list of numbers; nil when absent.
func (b *body) numList(name string) []float64 {
	v, ok := b.eval(name, cty.List(cty.Number))
	if !ok {
		return nil
	}
	out := make([]float64, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			b.fail(name, "Invalid value", "The elements of %s must not be null.", name)
			return nil
		}
		f, _ := ev.AsBigFloat().Float64()
		out = append(out, f)
	}
	return out
}

// campaign checks the campaign and expected_spike blocks, and fills the
// rates from the baselines (or the other way) with C.
func (v *validator) campaign() {
	if e := v.s.ExpectedSpike; e != nil && v.present("expected_spike") {
		if v.d.src.has("expected_spike.multiplier") {
			v.errorf(e.Multiplier <= 1 || e.Multiplier > MaxMultiplier, "expected_spike.multiplier", "Value out of range",
				"multiplier is the spike production brings, a multiple of baseline from above 1 to %d. Got %g.", MaxMultiplier, e.Multiplier)
		}
		v.positiveDur(e.Duration, "expected_spike.duration", "duration", "how long production's spike lasts")
	}
	c := v.s.Campaign
	if c == nil || !v.present("campaign") {
		return
	}
	src := v.d.src
	hasB, hasR := src.has("campaign.baselines"), src.has("campaign.rates")
	v.errorf(!hasB && !hasR && src.ok("campaign.baselines") && src.ok("campaign.rates"), "campaign", "Missing baselines",
		"The campaign block needs the load at which to search: baselines = [0.2, 0.3, 0.4] (utilizations ρ, λ = ρ·C) or rates = [20, 30, 40] (first attempts per second).")
	v.errorf(hasB && hasR, "campaign.rates", "Baselines given twice",
		"Give either baselines (utilizations ρ) or rates (first attempts per second), not both.")
	list, path, what := c.Baselines, "campaign.baselines", "a utilization ρ, above 0 and below 1"
	if hasR {
		list, path, what = c.Rates, "campaign.rates", "first attempts per second, above 0 and at most 1e6"
	}
	v.errorf((hasB || hasR) && len(list) == 0, path, "Empty list", "%s needs at least one value.", path[len("campaign."):])
	v.errorf(len(list) > MaxCampaignBaselines, path, "Too many baselines", "A campaign maps at most %d baselines; got %d.", MaxCampaignBaselines, len(list))
	for i, x := range list {
		bad := x <= 0 || x >= 1
		if hasR {
			bad = x <= 0 || x > MaxBaseline
		}
		v.errorf(bad, path, "Value out of range", "Element %d of %s is %s. Got %g.", i, path[len("campaign."):], what, x)
	}
	capacity := c.Search == vocab.SearchCapacity
	v.errorf(!capacity && v.s.Fault != nil, "campaign.search", "Campaign of a fault",
		"This scenario's trigger is a fault: map it with search = \"capacity\" (the capacity it takes away), not a spike's %s.", c.Search)
	v.errorf(capacity && v.s.Fault == nil && src.ok("campaign.search"), "campaign.search", "Capacity search without a fault",
		"search = \"capacity\" varies the capacity a fault takes away; this scenario has no fault block.")
	if capacity && v.s.Fault != nil {
		_, declared := v.s.Variables[c.CapacityVariable]
		v.errorf(c.CapacityVariable == "" && src.ok("campaign.capacity_variable"), "campaign", "Missing capacity_variable",
			"A capacity search sets a variable to the capacity each cell leaves, C′/C, and the fault's capacity and start command read it: capacity_variable = \"factor\" with fault { capacity = var.factor, start = [..., var.factor] }.")
		v.errorf(c.CapacityVariable != "" && !declared, "campaign.capacity_variable", "Unknown variable",
			"capacity_variable names a declared variable; there is no variable %q.", c.CapacityVariable)
	}
	if src.has("campaign.from") && src.has("campaign.to") {
		unit := "a multiplier above 1"
		low := 1.0
		switch c.Search {
		case vocab.SearchDuration:
			unit, low = "a duration above zero", 0
		case vocab.SearchCapacity:
			unit, low = "a capacity loss 1 − C′/C above 0 and below 1", 0
			v.errorf(c.To >= 1, "campaign.to", "Value out of range", "to is the largest capacity loss tried, 1 − C′/C, below 1 (a fault that leaves nothing). Got %g.", c.To)
		}
		v.errorf(c.From <= low, "campaign.from", "Value out of range", "from is the first, safe size, %s. Got %g.", unit, c.From)
		v.errorf(c.To <= c.From, "campaign.to", "Value out of range", "to is the largest size tried and must be above from (%g). Got %g.", c.From, c.To)
		v.errorf(c.Search == vocab.SearchMultiplier && c.To > MaxMultiplier, "campaign.to", "Value out of range",
			"to may be at most %d, the largest multiplier a spike may have. Got %g.", MaxMultiplier, c.To)
	}
	v.errorf(c.Precision < MinCampaignPrecision || c.Precision >= 1 || math.IsNaN(c.Precision), "campaign.precision", "Value out of range",
		"precision is how narrow the bracket must get, relative to its upper end, from %g to below 1 (0.1: 10 %%). Got %g.", MinCampaignPrecision, c.Precision)
	v.positiveDur(c.MaxDuration, "campaign.max_duration", "max_duration", "the hard limit on the whole campaign's wall time")
	v.nonNegDur(c.Rest, "campaign.rest", "rest", "the pause without load before each cell")
	v.errorf(c.Trials < 1 || c.Trials > MaxCampaignTrials, "campaign.trials", "Value out of range",
		"trials is the most trials a cell takes, from 1 (one run decides it) to %d. Got %d.", MaxCampaignTrials, c.Trials)
	v.errorf(!(c.TrapProbability > 0 && c.TrapProbability < 1), "campaign.trap_probability", "Value out of range",
		"trap_probability is the level of P(trap) searched for, above 0 and below 1 (0.5: the boundary; 0.05: a safety margin). Got %g.", c.TrapProbability)
	if below, above := TrialsToDecide(c.TrapProbability); c.Trials > 1 && (c.Trials < below || c.Trials < above) {
		side, outcome := "below", "clean"
		if c.Trials >= below {
			side, outcome = "above", "trapped"
		}
		v.warnf(true, "campaign.trials", "Too few trials to decide",
			"At trap_probability = %g the sequential test calls a cell below the level only after %d clean trials, and above it after %d trapped ones: with trials = %d no cell can be called %s it. A cell whose trials all come out %s stays undecided, and the search stops there with no interval. Set trials to at least %d, or choose a level nearer 0.5.",
			c.TrapProbability, below, above, c.Trials, side, outcome, max(below, above))
	}
	v.fillRates(c, hasB, hasR)
}

// TrialsToDecide is the fewest trials the campaign's sequential rule
// (analysis.SequentialSide: Wald's test between p₀ = level − δ and
// p₁ = level + δ, δ = min(level, 1 − level)/2, errors of 10 % each way)
// takes to call a cell below level, every trial clean, and above it,
// every trial trapped: ⌈ln 9/ln((1 − p₀)/(1 − p₁))⌉ and ⌈ln 9/ln(p₁/p₀)⌉
// (42 and 2 at 0.05, 2 and 2 at 0.5). It is analysis.MinTrialsToDecide in
// closed form, which scenarios cannot import; a test holds them equal.
// 0, 0 for a level outside (0, 1).
func TrialsToDecide(level float64) (below, above int) {
	if !(level > 0 && level < 1) {
		return 0, 0
	}
	d := math.Min(level, 1-level) / 2
	p0, p1 := level-d, level+d
	// SequentialSide decides at ln 9 less 1e-12.
	bound := math.Log(9) - 1e-12
	n := func(x float64) int { return int(math.Min(math.Ceil(x), 1e18)) }
	return n(bound / math.Log((1-p0)/(1-p1))), n(bound / math.Log(p1/p0))
}

// fillRates gives the campaign both forms of its baselines once C is known.
func (v *validator) fillRates(c *Campaign, hasB, hasR bool) {
	C := v.s.Service.Capacity
	if C <= 0 {
		return
	}
	switch {
	case hasB && c.Rates == nil:
		for _, rho := range c.Baselines {
			c.Rates = append(c.Rates, rho*C)
		}
	case hasR && c.Baselines == nil:
		for _, l := range c.Rates {
			c.Baselines = append(c.Baselines, l/C)
		}
		for i, rho := range c.Baselines {
			v.errorf(rho >= 1, "campaign.rates", "Value out of range",
				"Element %d of rates is %g/s, ρ = %.2f of C = %g/s: a baseline at or above capacity is no baseline.", i, c.Rates[i], rho, C)
		}
	}
}

// String is a campaign's one-line summary, for the plan and logs.
func (c *Campaign) String() string {
	return fmt.Sprintf("%s from %g to %g at ρ = %v (precision %g)", c.Search, c.From, c.To, c.Baselines, c.Precision)
}
