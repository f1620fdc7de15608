package analysis

import (
	"fmt"
	"math"
)

// Patience is the shortest patience in front of the service, in seconds,
// and what sets it: the clients' timeout τ_out, or the shorter per-try
// timeout of a retry layer between them and the service (a gateway that
// abandons each try after 300 ms behind clients with τ_out = 1 s fails
// every attempt once the wait passes 300 ms, and answers the client a 5xx
// before its timeout). The model uses it wherever a wait is compared with
// a patience: t0, the trigger size, the admission bound, the recovery time
// (docs/model.md, "Retry debt and amplification"). layers are the retry
// layers, the client first (its TimeoutS is ignored: timeoutS is its).
func Patience(timeoutS float64, layers []RetryLayer) (patienceS float64, by string) {
	patienceS, by = timeoutS, "the client timeout τ_out"
	for i, l := range layers {
		if i == 0 || l.TimeoutS <= 0 || l.TimeoutS >= patienceS {
			continue
		}
		patienceS, by = l.TimeoutS, fmt.Sprintf("layer %q's per-try timeout", l.Name)
	}
	return patienceS, by
}

// FailLatency is how long, in seconds, a client waits for an attempt that
// fails in front of a service whose wait exceeds every patience: its own
// timeout, or sooner when a layer with a per-try timeout gives up after
// all its tries (timeout × (R + 1)) and answers an error first. It is the
// lag between a failed attempt and the client's retry.
func FailLatency(timeoutS float64, layers []RetryLayer) float64 {
	lat := timeoutS
	for i, l := range layers {
		if i == 0 || l.TimeoutS <= 0 {
			continue
		}
		lat = math.Min(lat, l.TimeoutS*float64(l.TriesInFailedState()))
	}
	return lat
}
