package scenarios

import "time"

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
}
