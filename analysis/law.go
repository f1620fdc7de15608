package analysis

import (
	"encoding/json"
	"math"

	"github.com/trigger-test/trigger/vocab"
)

// LawSource says where a latency law came from.
type LawSource string

const (
	// LawDeclared is the scenario's service.latency_law and latency_floor.
	LawDeclared LawSource = "declared"
	// LawFitted is fitted to the run's healthy seconds (FitLatencyLaw).
	LawFitted LawSource = "fitted"
	// LawAssumed is the queue law with no floor, when nothing declared or
	// measured another: the model's one FIFO queue.
	LawAssumed LawSource = "assumed"
)

// LatencyLaw is how the service's latency L, in seconds, depends on the
// requests in flight N (docs/model.md, "Latency laws and what sustains a
// trap"). It is the `latency_law` section of the result document.
//
//   - vocab.LawQueue: L = max(L₀, N/C), a FIFO queue behind c = C·L₀
//     servers or behind a latency floor L₀; the throughput is min(N/L₀, C).
//   - vocab.LawConcurrency: L = L₀ + N/C, no queue; the throughput
//     N/(L₀ + N/C) approaches C and never reaches it.
type LatencyLaw struct {
	Kind vocab.LatencyLaw `json:"kind"`
	// FloorS is L₀, seconds: the latency of a request alone.
	FloorS float64 `json:"floor_s"`
	// CapacityPerS is C, requests per second: N/C is the part of the
	// latency the requests in flight add. NaN (null) when unknown.
	CapacityPerS float64   `json:"capacity_per_s"`
	Source       LawSource `json:"source"`
	// FitR2 is the chosen law's R² on the Points seconds it was fitted to,
	// OtherR2 the other law's on the same seconds; NaN (null) unless fitted.
	FitR2   float64 `json:"fit_r2"`
	OtherR2 float64 `json:"other_r2"`
	Points  int     `json:"points"`
	// Note says what the law rests on: why it was chosen, or why no law
	// could be told apart and which was assumed.
	Note string `json:"note,omitempty"`
}

// AssumedLaw is the model's own queue, with no floor, at capacity C.
func AssumedLaw(capacityPerS float64, note string) LatencyLaw {
	return LatencyLaw{Kind: vocab.LawQueue, CapacityPerS: capacityPerS, Source: LawAssumed,
		FitR2: math.NaN(), OtherR2: math.NaN(), Note: note}
}

// Queue reports whether the law is the queue's, whose formulas (the
// trigger size, the wait's slope A·ρ − 1, the recovery time) are the rest
// of docs/model.md's.
func (l LatencyLaw) Queue() bool { return l.Kind == vocab.LawQueue }

// Latency is L(N), seconds, at n requests in flight.
func (l LatencyLaw) Latency(n float64) float64 {
	if l.Kind == vocab.LawConcurrency {
		return l.FloorS + n/l.CapacityPerS
	}
	return math.Max(l.FloorS, n/l.CapacityPerS)
}

// Throughput is X(N) = N/L(N), requests per second, at n in flight.
func (l LatencyLaw) Throughput(n float64) float64 {
	if n <= 0 {
		return 0
	}
	if l.Kind == vocab.LawQueue && l.FloorS <= 0 {
		return l.CapacityPerS
	}
	return n / l.Latency(n)
}

// WaitPatienceS is the part of the latency that may grow before a client
// whose patience is patienceS seconds gives up: patienceS − L₀, never
// below zero. With a floor the wait that times a client out is shorter
// than its timeout by the floor.
func (l LatencyLaw) WaitPatienceS(patienceS float64) float64 {
	return math.Max(0, patienceS-l.FloorS)
}

// InFlightAtTimeout is N_τ, the requests in flight at which the latency
// reaches patienceS: patienceS·C for the queue, (patienceS − L₀)·C for
// concurrency.
func (l LatencyLaw) InFlightAtTimeout(patienceS float64) float64 {
	if l.Kind == vocab.LawConcurrency {
		return l.WaitPatienceS(patienceS) * l.CapacityPerS
	}
	return patienceS * l.CapacityPerS
}

// CapacityAtTimeout is C_τ, requests per second: the throughput when the
// latency is patienceS. The queue serves C there; under concurrency only
// C·(1 − L₀/patienceS). A failed state holds while the work arriving,
// A·λ, is at least C_τ (docs/model.md, "Latency laws and what sustains a
// trap").
func (l LatencyLaw) CapacityAtTimeout(patienceS float64) float64 {
	if l.Kind == vocab.LawConcurrency {
		if patienceS <= 0 {
			return 0
		}
		return l.CapacityPerS * l.WaitPatienceS(patienceS) / patienceS
	}
	return l.CapacityPerS
}

// Equilibrium is the requests in flight at which the throughput equals a
// steady demand of lambda per second; +Inf when lambda ≥ C (no
// equilibrium: the backlog grows).
func (l LatencyLaw) Equilibrium(lambda float64) float64 {
	c := l.CapacityPerS
	switch {
	case lambda <= 0:
		return 0
	case lambda >= c:
		return math.Inf(1)
	case l.Kind == vocab.LawConcurrency:
		return lambda * l.FloorS / (1 - lambda/c)
	}
	return lambda * l.FloorS
}

// UnmarshalJSON reads a law as MarshalJSON writes it, a null number
// (unknown, or no fit) back as NaN rather than 0: a judged run's document
// keeps the law it read.
func (l *LatencyLaw) UnmarshalJSON(b []byte) error {
	type plain LatencyLaw
	var v struct {
		plain
		CapacityPerS *float64 `json:"capacity_per_s"`
		FitR2        *float64 `json:"fit_r2"`
		OtherR2      *float64 `json:"other_r2"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*l = LatencyLaw(v.plain)
	orNaN := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	l.CapacityPerS, l.FitR2, l.OtherR2 = orNaN(v.CapacityPerS), orNaN(v.FitR2), orNaN(v.OtherR2)
	return nil
}
