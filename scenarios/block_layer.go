package scenarios

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Layer is one retry layer believed to sit between the client and the
// service, such as a gateway, a mesh sidecar or an SDK (block "layer", one
// per layer, labelled with its name). Its amplification multiplies the
// client's (docs/model.md, "Retry debt and amplification").
type Layer struct {
	Name       string // the block label
	MaxRetries int    // retries after the first attempt; default 0
	// Budget is β for this layer in [0, 1]; nil means no budget.
	Budget *float64
	// RetryProbability is the chance r that a failure is retried, in (0, 1]; default 1.
	RetryProbability float64
	// Timeout is the layer's own per-attempt timeout; zero means unknown.
	Timeout time.Duration
	// On is what the layer retries, the outcome classes of a failed try
	// (as client.retry.on names them: Envoy's retry_on, Istio's retryOn,
	// nginx's proxy_next_upstream); default AnyFailure, every failure.
	On retry.OutcomeSet
}

// AnyFailure is layer.on's default: every outcome class but ok.
var AnyFailure = func() retry.OutcomeSet {
	var s retry.OutcomeSet
	for o := vocab.OutcomeOK + 1; o < vocab.NumOutcomes; o++ {
		s |= retry.NewOutcomeSet(o)
	}
	return s
}()

// DefaultRetryProbability is layer.retry_probability.
const DefaultRetryProbability = 1

// layerSchema is a layer block's: attribute names are the snake_case of
// Layer's fields.
var layerSchema = &hcl.BodySchema{Attributes: attrs("max_retries", "budget", "retry_probability", "timeout", "on")}

// decodeLayer decodes the i-th layer block.
func (d *decoder) decodeLayer(i int, blk *hcl.Block) Layer {
	b := d.open("layer", fmt.Sprintf("layer[%d]", i), blk.Body, blk.DefRange, schemaOf("layer"))
	d.src.elems[fmt.Sprintf("layer[%d].name", i)] = blk.LabelRanges[0]
	return Layer{
		Name:             blk.Labels[0],
		MaxRetries:       b.integer("max_retries", 0),
		Budget:           b.optNum("budget"),
		RetryProbability: b.num("retry_probability", DefaultRetryProbability),
		Timeout:          b.duration("timeout", 0),
		On:               b.outcomes("on", AnyFailure),
	}
}

// layers checks every layer block, names unique.
func (v *validator) layers() {
	seen := map[string]int{}
	for i := range v.s.Layers {
		l := &v.s.Layers[i]
		p := fmt.Sprintf("layer[%d]", i)
		if !v.present(p) {
			continue
		}
		v.unique(seen, "layer", l.Name, i, "retry layer")
		v.errorf(l.Name == "", p+".name", "Invalid layer name", "A layer needs a non-empty name, such as \"gateway\" or \"mesh\".")
		v.errorf(l.MaxRetries < 0 || l.MaxRetries > MaxRetries, p+".max_retries", "Value out of range",
			"max_retries is this layer's retries after its first try and must be from 0 to %d. Got %d.", MaxRetries, l.MaxRetries)
		if l.Budget != nil {
			v.fraction(*l.Budget, false, p+".budget", "budget", "this layer's β, retries as a fraction of its first tries")
		}
		v.fraction(l.RetryProbability, true, p+".retry_probability", "retry_probability", "r, the chance that a failure is retried")
		v.nonNegDur(l.Timeout, p+".timeout", "timeout", "the layer's own per-try timeout (0: unknown)")
		v.warnf(l.On == 0 && l.MaxRetries > 0, p+".on", "Nothing is retried",
			"on is empty, so this layer retries no outcome and max_retries = %d has no effect.", l.MaxRetries)
	}
}
