package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Gate is the release gate (block "gate").
type Gate struct {
	MaxRecovery time.Duration // recovery budget; zero means none
	AllowTrap   bool          // default false: a trapped service fails the gate
	// MaxAmplification fails the gate when the measured A exceeds it; zero means none.
	MaxAmplification float64
}

// gateSchema is the gate block's: attribute names are the snake_case of
// Gate's fields.
var gateSchema = &hcl.BodySchema{Attributes: attrs("max_recovery", "allow_trap", "max_amplification")}

// decodeGate decodes the gate block.
func (d *decoder) decodeGate(blk *hcl.Block) Gate {
	b := d.open("gate", "gate", blk.Body, blk.DefRange, gateSchema)
	return Gate{
		MaxRecovery:      b.duration("max_recovery", 0),
		AllowTrap:        b.boolean("allow_trap", false),
		MaxAmplification: b.num("max_amplification", 0),
	}
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
}
