package analysis

import (
	"math"

	"github.com/trigger-test/trigger/vocab"
)

// RetryLayer is one layer that retries failed attempts on their way to the
// service: the client itself, a gateway, a service mesh, an SDK.
type RetryLayer struct {
	// Name labels the layer in reports ("client", "gateway", ...).
	Name string `json:"name"`
	// MaxRetries is R, retries after the first attempt (R = 2: three attempts).
	MaxRetries int `json:"max_retries"`
	// RetryProbability is r, the chance a failure is retried, in (0, 1]. Zero
	// means 1 (every failure is retried while the cap allows).
	RetryProbability float64 `json:"retry_probability,omitempty"`
	// HasBudget says whether Budget limits the layer's retries.
	HasBudget bool `json:"has_budget,omitempty"`
	// Budget is β: retries per second at most β × first attempts per second.
	Budget float64 `json:"budget,omitempty"`
	// TimeoutS is the layer's own per-try timeout in seconds (zero:
	// unknown, or none shorter than its caller's). A try that waits longer
	// fails at this layer, whatever the client's timeout (Patience).
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// On is what the layer retries: the outcome classes of a failed try
	// (vocab.Outcome, as client.retry.on names them). Nil retries every
	// failure.
	On []vocab.Outcome `json:"on,omitempty"`
	// Sees is the outcome of a failed try at this layer once the service's
	// wait exceeds every patience (SetFailedStateOutcomes); zero (ok) when
	// not worked out, which counts as retried.
	Sees vocab.Outcome `json:"sees,omitempty"`
}

// Amplification is the work one first attempt turns into at this layer once
// every attempt fails (docs/model.md, "Retry debt and amplification"):
// (1 − r^(R+1))/(1 − r) for a cap R and retry probability r (R + 1 when
// r = 1), and at most 1 + β under a budget.
//
// A layer that does not retry what it sees in the failed state (its On
// lacks Sees) brings one try per call: 1.
func (l RetryLayer) Amplification() float64 {
	if !l.RetriesInFailedState() {
		return 1
	}
	a := CappedAmplification(l.MaxRetries, l.EffectiveRetryProbability())
	if l.HasBudget {
		a = math.Min(a, budgetAmplification(l.Budget))
	}
	return a
}

// EffectiveRetryProbability is r as the model uses it: 1 when the layer
// names none, at most 1.
func (l RetryLayer) EffectiveRetryProbability() float64 {
	if l.RetryProbability <= 0 {
		return 1
	}
	return math.Min(l.RetryProbability, 1)
}

// CappedAmplification is A for a layer that retries a failure with
// probability r, at most maxRetries times: (1 − r^(R+1))/(1 − r), which is
// R + 1 when r = 1 (docs/model.md, "Retry debt and amplification").
func CappedAmplification(maxRetries int, r float64) float64 {
	if maxRetries <= 0 {
		return 1
	}
	if r >= 1 {
		return float64(maxRetries + 1)
	}
	if r <= 0 {
		return 1
	}
	return (1 - math.Pow(r, float64(maxRetries+1))) / (1 - r)
}

// budgetAmplification is A = 1 + β for a retry budget β (retries per second
// at most β × first attempts per second) when every attempt fails.
func budgetAmplification(beta float64) float64 {
	return 1 + math.Max(beta, 0)
}

// stackAmplification is the amplification of several retry layers in
// series: the factors multiply (client ×3 behind gateway ×3 gives 9).
// An empty stack has A = 1.
func stackAmplification(layers ...RetryLayer) float64 {
	a := 1.0
	for _, l := range layers {
		a *= l.Amplification()
	}
	return a
}

// trapThreshold is the utilization 1/A at and above which a triggered
// service stays failed (docs/model.md, "The trap").
func trapThreshold(amplification float64) float64 {
	return 1 / amplification
}

// trapped reports the trap condition A·ρ ≥ 1: after a trigger the failed
// state is permanent (docs/model.md, "The trap", trap condition).
func trapped(amplification, rho float64) bool {
	return amplification*rho >= 1
}
