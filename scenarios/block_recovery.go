package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// Recovery defines when a real run counts as recovered (block "recovery").
type Recovery struct {
	// SuccessRatio is the first-attempt success ratio the service must get
	// back above; default 0.99.
	SuccessRatio float64
	// Hold is how long the ratio must stay above SuccessRatio; default 10s.
	Hold time.Duration
}

// Defaults of the recovery block's attributes (also when the block is
// absent); those the model also fills in are vocab's.
const (
	// DefaultSuccessRatio is recovery.success_ratio, a fraction.
	DefaultSuccessRatio = vocab.DefaultSuccessRatio
	// DefaultHold is recovery.hold.
	DefaultHold = 10 * time.Second
)

// recoverySchema is the recovery block's: attribute names are the
// snake_case of Recovery's fields.
var recoverySchema = &hcl.BodySchema{Attributes: attrs("success_ratio", "hold")}

// decodeRecovery decodes the recovery block.
func (d *decoder) decodeRecovery(blk *hcl.Block) Recovery {
	b := d.open("recovery", "recovery", blk.Body, blk.DefRange, schemaOf("recovery"))
	return Recovery{
		SuccessRatio: b.num("success_ratio", DefaultSuccessRatio),
		Hold:         b.duration("hold", DefaultHold),
	}
}

// recovery checks the recovery block.
func (v *validator) recovery() {
	if !v.present("recovery") {
		return
	}
	r := &v.s.Recovery
	v.fraction(r.SuccessRatio, true, "recovery.success_ratio", "success_ratio", "the first-attempt success ratio that counts as recovered")
	v.nonNegDur(r.Hold, "recovery.hold", "hold", "how long the ratio must hold")
}
