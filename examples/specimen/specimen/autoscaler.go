package specimen

import (
	"math"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// signals are the windowed measurements an autoscaler decision reads.
type signals struct {
	ingressRate float64 // attempts/s arriving at the pods, every kind
	firstRate   float64 // first attempts/s
	busy        float64 // busy fraction of the ready pods, in [0, 1]
	ready       int     // ready pods
}

// scaler is the decision rule of the autoscaler, pure: time comes in as an
// argument. It follows the Kubernetes HPA: desired = ceil(current·u/u*)
// with a tolerance, a scale-up growth limit and a downscale stabilization
// window in which the largest recommendation wins (docs/model.md,
// "Autoscalers, ceilings and admission").
type scaler struct {
	cfg     AutoscalerConfig
	podRate float64          // c, requests/s of one pod
	history []recommendation // recent recommendations, oldest first
}

type recommendation struct {
	at time.Time
	n  int
}

// recommend returns the raw replica recommendation for a signal: for the
// rate signals ceil(rate / (c·u*)), which is ceil(N·u/u*) with
// u = rate/(N·c); for cpu ceil(N·busy/u*). It returns the ready count when
// the ratio u/u* is within the tolerance of 1.
func (sc *scaler) recommend(sig signals) int {
	n := sig.ready
	if n < 1 {
		n = 1
	}
	rate := func(r float64) float64 { return r / (sc.podRate * sc.cfg.Target) }
	var raw float64
	switch sc.cfg.Signal {
	case vocab.SignalCPU:
		raw = float64(n) * sig.busy / sc.cfg.Target
	case vocab.SignalIngress:
		raw = rate(sig.ingressRate)
	case vocab.SignalFirstAttempts:
		raw = rate(sig.firstRate)
	case vocab.SignalPaired:
		raw = math.Max(rate(sig.firstRate), rate(sig.ingressRate))
	}
	if math.Abs(raw/float64(n)-1) <= sc.cfg.Tolerance {
		return n
	}
	return int(math.Ceil(raw - 1e-9))
}

// decide returns the desired replica count at now, given the current desired
// count (ordered pods, ready or not) and the signals.
func (sc *scaler) decide(now time.Time, current int, sig signals) int {
	rec := sc.recommend(sig)
	// Stabilization: scale down only to the largest recommendation of the
	// window, so capacity is kept until the debt has cleared.
	cut := now.Add(-sc.cfg.DownscaleStabilization)
	i := 0
	for i < len(sc.history) && sc.history[i].at.Before(cut) {
		i++
	}
	sc.history = append(sc.history[:0], sc.history[i:]...)
	sc.history = append(sc.history, recommendation{now, rec})
	desired := current
	if rec > current {
		limit := max(int(math.Ceil(float64(current)*sc.cfg.ScaleUpFactor-1e-9)), current+1)
		desired = min(rec, limit)
	} else {
		stab := 0
		for _, h := range sc.history {
			stab = max(stab, h.n)
		}
		if stab < current {
			desired = stab
		}
	}
	return min(max(desired, sc.cfg.MinReplicas, 1), sc.cfg.MaxReplicas)
}
