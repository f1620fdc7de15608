package analysis

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/vocab"
)

// ScalerVerdict is the prediction for an autoscaled service after a trigger.
type ScalerVerdict struct {
	// Escapes is true when the scaler's rule lets the service leave the
	// failed state (given enough ceiling and that it keeps the capacity).
	Escapes bool `json:"escapes"`
	// HeldUtilization is the utilization the scaler holds in the failed
	// state: u* for a debt-blind signal, u*/A for one that counts the debt.
	HeldUtilization float64 `json:"held_utilization"`
	// Reason explains the rule in plain words.
	Reason string `json:"reason"`
}

// scalerEscape applies the scaler rules of docs/model.md ("Autoscalers,
// ceilings and admission"): a
// debt-blind signal (first attempts) holds ρ at its target u* and is trapped
// iff u* ≥ 1/A; a signal that counts every attempt (ingress, CPU, paired)
// sizes capacity so that A·ρ = u* and escapes whenever u* < 1.
func scalerEscape(signal vocab.ScalerSignal, target, amplification float64) ScalerVerdict {
	switch signal {
	case vocab.SignalFirstAttempts:
		threshold := trapThreshold(amplification)
		if target >= threshold {
			return ScalerVerdict{false, target, fmt.Sprintf(
				"a first-attempt signal holds ρ at its target %.2f ≥ 1/A = %.2f: the retry debt never shows, so the service stays failed", target, threshold)}
		}
		return ScalerVerdict{true, target, fmt.Sprintf(
			"a first-attempt signal holds ρ at %.2f < 1/A = %.2f: the debt drains", target, threshold)}
	case vocab.SignalIngress, vocab.SignalCPU, vocab.SignalPaired:
		held := target / amplification
		if target < 1 {
			reason := fmt.Sprintf("a %s signal counts the retries and sizes capacity so that A·ρ = %.2f < 1: it escapes if it keeps that capacity until the debt clears", signal, target)
			if signal == vocab.SignalCPU {
				reason += " (slowly, with a large overshoot)"
			}
			return ScalerVerdict{true, held, reason}
		}
		return ScalerVerdict{false, held, fmt.Sprintf("a target of %.2f ≥ 1 never leaves spare capacity for the debt", target)}
	}
	return ScalerVerdict{false, target, fmt.Sprintf("unknown signal %q", signal)}
}

// ceilingFloor is M* = A·λ/c, in pods: with a replica ceiling M ≤ M* a failed
// service stays failed whatever its scaling signal (docs/model.md,
// "Autoscalers, ceilings and admission", ceiling).
func ceilingFloor(amplification, demand, podRate float64) float64 {
	return amplification * demand / podRate
}

// CeilingBand is the band of safe replica ceilings A·λ/c < M ≤ 0.8·N_max
// (docs/model.md, "Autoscalers, ceilings and admission", ceiling). The
// band can be empty.
type CeilingBand struct {
	// FloorPods is M* = A·λ/c; a safe ceiling must be strictly above it.
	FloorPods float64 `json:"floor_pods"`
	// TopPods is 0.8·N_max, where N_max is the scalability peak.
	TopPods float64 `json:"top_pods"`
	// LowestPods and HighestPods are the smallest and largest whole replica
	// counts in the band; zero when it is empty.
	LowestPods  int `json:"lowest_pods"`
	HighestPods int `json:"highest_pods"`
	// Empty is true when no whole replica count is both above the floor and
	// at most the top.
	Empty bool `json:"empty"`
}

// safeCeilingBand computes the band of safe ceilings for a service whose
// throughput peaks at scalabilityPeak pods (docs/model.md, "Autoscalers,
// ceilings and admission", ceiling).
func safeCeilingBand(amplification, demand, podRate float64, scalabilityPeak int) CeilingBand {
	b := CeilingBand{
		FloorPods: ceilingFloor(amplification, demand, podRate),
		TopPods:   0.8 * float64(scalabilityPeak),
	}
	lowest, highest := int(math.Floor(b.FloorPods))+1, int(math.Floor(b.TopPods))
	if lowest > highest {
		b.Empty = true
		return b
	}
	b.LowestPods, b.HighestPods = lowest, highest
	return b
}

// ceilingDrainRate is the rate, in work per second, at which the debt of a
// failed service drains at ceiling maxReplicas: c·(M − M*), or zero when
// M ≤ M* and the debt never drains (docs/model.md, "Autoscalers, ceilings
// and admission", ceiling).
func ceilingDrainRate(podRate float64, maxReplicas int, floorPods float64) float64 {
	spare := float64(maxReplicas) - floorPods
	if spare <= 0 {
		return 0
	}
	return podRate * spare
}

// admissionBoundHolds reports b < τ_out: with an admission bound shorter
// than the client timeout every admitted attempt is served before its client
// gives up, no debt forms and the trap cannot hold (docs/model.md,
// "Autoscalers, ceilings and admission", admission bound).
func admissionBoundHolds(boundS, timeoutS float64) bool {
	return boundS > 0 && boundS < timeoutS
}
