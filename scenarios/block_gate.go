package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/vocab"
)

// Gate is the release gate (block "gate").
type Gate struct {
	MaxRecovery time.Duration // recovery budget; zero means none
	AllowTrap   bool          // default false: a trapped service fails the gate
	// MaxAmplification fails the gate when the measured A exceeds it; zero means none.
	MaxAmplification float64
	// Baseline is a previous run's result.json (a path relative to the
	// folder trigger runs from): the run compares itself with it (trigger
	// compare) and fails the gate on a regression; "" for none.
	// MaxRecoveryRegression and MaxAmplificationRegression are the
	// comparison's thresholds, shares (0.2: 20 %).
	Baseline                   string
	MaxRecoveryRegression      float64
	MaxAmplificationRegression float64
	// MinTriggerMargin (trigger campaign) passes when the smallest trapping
	// trigger is at least this many times expected_spike's size at every
	// baseline; zero means none.
	MinTriggerMargin float64
	// MaxTrapProbability (trigger run --trials N) passes when the Wilson
	// 95 % upper end of P(trap) over the trials is at most this share,
	// 0 < p < 1; zero means none. One run cannot judge it.
	MaxTrapProbability float64
}

// Defaults of gate's regression thresholds: trigger compare's.
const (
	DefaultMaxRecoveryRegression      = 0.2
	DefaultMaxAmplificationRegression = 0.1
)

// gateSchema is the gate block's: attribute names are the snake_case of
// Gate's fields.
var gateSchema = &hcl.BodySchema{Attributes: attrs("max_recovery", "allow_trap", "max_amplification", "baseline",
	"max_recovery_regression", "max_amplification_regression", "min_trigger_margin", "max_trap_probability")}

// decodeGate decodes the gate block.
func (d *decoder) decodeGate(blk *hcl.Block) Gate {
	b := d.open("gate", "gate", blk.Body, blk.DefRange, schemaOf("gate"))
	if sb, ok := blk.Body.(*hclsyntax.Body); ok {
		d.gateBody = sb.SrcRange
	}
	return Gate{
		MaxRecovery:                b.duration("max_recovery", 0),
		AllowTrap:                  b.boolean("allow_trap", false),
		MaxAmplification:           b.num("max_amplification", 0),
		Baseline:                   b.str("baseline", ""),
		MaxRecoveryRegression:      b.share("max_recovery_regression", DefaultMaxRecoveryRegression),
		MaxAmplificationRegression: b.share("max_amplification_regression", DefaultMaxAmplificationRegression),
		MinTriggerMargin:           b.num("min_trigger_margin", 0),
		MaxTrapProbability:         b.num("max_trap_probability", 0),
	}
}

// share reads a share given as "20%" or as a number (0.2), within 0 and
// 10 (1000 %); def when absent.
func (b *body) share(name string, def float64) float64 {
	v, ok := b.eval(name, cty.String)
	if !ok {
		return def
	}
	f, err := vocab.ParseShare(v.AsString())
	if err != nil {
		b.fail(name, "Invalid share", "%s is a share such as \"20%%\" or 0.2, from 0 to 1000 %%: %v.", name, err)
		return def
	}
	return f
}

// gate checks the gate block.
func (v *validator) gate() {
	if !v.present("gate") {
		return
	}
	g := &v.s.Gate
	v.nonNegDur(g.MaxRecovery, "gate.max_recovery", "max_recovery", "the recovery budget (0: none)")
	v.errorf(g.MaxAmplification < 0 || (g.MaxAmplification > 0 && g.MaxAmplification < 1), "gate.max_amplification", "Value out of range",
		"max_amplification is the largest A the gate accepts, 0 for none; A is at least 1 (every request is one attempt), so it must be 0 or ≥ 1. Got %g.",
		g.MaxAmplification)
	v.errorf(g.MinTriggerMargin < 0 || (g.MinTriggerMargin > 0 && g.MinTriggerMargin < 1), "gate.min_trigger_margin", "Value out of range",
		"min_trigger_margin is how many times expected_spike the smallest trapping trigger must be, 0 for none or at least 1. Got %g.", g.MinTriggerMargin)
	v.errorf(g.MinTriggerMargin > 0 && v.s.Campaign != nil && v.s.Campaign.Search == vocab.SearchCapacity, "gate.min_trigger_margin", "Margin of a capacity search",
		"min_trigger_margin compares the smallest trapping spike with expected_spike; a capacity search maps a fault's size, which no spike measures.")
	v.errorf(g.MinTriggerMargin > 0 && v.s.ExpectedSpike == nil, "gate.min_trigger_margin", "Missing expected_spike",
		"min_trigger_margin compares the smallest trapping trigger with what production brings: add an expected_spike block (multiplier = 2, duration = \"30s\").")
	v.errorf(g.MaxTrapProbability < 0 || g.MaxTrapProbability >= 1, "gate.max_trap_probability", "Value out of range",
		"max_trap_probability is the largest P(trap) the gate accepts over repeated trials (trigger run --trials N), a share strictly between 0 and 1 such as 0.05 (0 for none). Got %g.",
		g.MaxTrapProbability)
	v.warnf(g.MaxTrapProbability > 0 && g.MaxTrapProbability < 1, "gate.max_trap_probability", "Judged over repeated trials",
		"max_trap_probability is judged only over repeated trials, every one clean for as many as it takes (trigger plan says how many): run the scenario with trigger run --trials N. plan and a single run report it as not judged.")
}

// testHash is the first 16 hex digits of the SHA-256 of the scenario's
// text without its gate and notify blocks' bodies (omit; a zero range is
// none): the test, whatever it is gated on and whoever hears of it (a
// candidate's scenario names the baseline to compare with, the
// baseline's does not), for trigger compare.
func testHash(src []byte, omit ...hcl.Range) string {
	if len(src) == 0 {
		return ""
	}
	type cut struct{ s, e int }
	var cuts []cut
	for _, r := range omit {
		s, e := r.Start.Byte, r.End.Byte
		if e <= s || e > len(src) {
			continue
		}
		// The braces around it, which a one-line block's body range leaves out.
		if i := bytes.LastIndexByte(src[:s+1], '{'); i >= 0 {
			s = i
		}
		if i := bytes.IndexByte(src[e-1:], '}'); i >= 0 {
			e = e - 1 + i + 1
		}
		cuts = append(cuts, cut{s, e})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.s - b.s })
	h := sha256.New()
	at := 0
	for _, c := range cuts {
		if c.s < at {
			continue // overlapping: cannot be two blocks' bodies
		}
		h.Write(src[at:c.s])
		at = c.e
	}
	h.Write(src[at:])
	return hex.EncodeToString(h.Sum(nil)[:8])
}
