package specimen_test

import (
	"math"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// One pod at C = 50/s, System A, client timeout 1 s, R = 2 (A = 3), a
// fivefold spike of Δ = 10 s after a short warmup. Rates are kept low so the
// tests hold on 2 shared cores under -race; the fluid model is
// dimensionless, so the predictions do not depend on C.
const (
	capacity = 50.0
	warmup   = 3 * time.Second
	spikeLen = 10 * time.Second
	spikeK   = 5.0
)

func systemA() specimen.Config { return specimen.Config{Pods: 1, PodRate: capacity} }

func spike(rho float64, after time.Duration) []loadgen.Stage {
	lambda := rho * capacity
	return []loadgen.Stage{
		loadgen.Constant(warmup, lambda),
		loadgen.Constant(spikeLen, spikeK*lambda),
		loadgen.Constant(after, lambda),
	}
}

// spikeEnd is the index of the first second after the spike.
var spikeEnd = int((warmup + spikeLen) / time.Second)

// TestSystemATrapped: at ρ = 0.4, A·ρ = 1.2 ≥ 1 (docs/model.md, "The trap"): after the
// spike the service stays failed, serving abandoned work every second until
// the end of the run.
func TestSystemATrapped(t *testing.T) {
	e2e(t, true)
	r := drive(t, systemA(), spike(0.4, 11*time.Second), 2, nil)
	last := len(r.samples) - 1
	if last < spikeEnd+10 {
		t.Fatalf("run too short: %d samples", len(r.samples))
	}
	for i := spikeEnd; i <= spikeEnd+10; i++ {
		if r.abandonedIn(i) == 0 {
			t.Errorf("second %d: no abandoned work served; the service recovered", i)
		}
	}
	// The backlog grows (A·ρ − 1 > 0): deeper at the end than at the spike's end.
	if a, b := r.samples[spikeEnd].QueueDepth, r.samples[spikeEnd+10].QueueDepth; b <= a {
		t.Errorf("queue %d at the spike's end, %d ten seconds later: not growing", a, b)
	}
}

// TestSystemARecovers: at ρ = 0.25, A·ρ = 0.75 < 1: the service recovers
// within ±25 % of the full recovery-time formula (docs/model.md, "The trap")
// T_rec = (A·k·ρ − 1)(Δ − t0)/(1 − A·ρ) + τ_out/(1 − ρ), t0 = τ_out/(kρ − 1),
// about 67 s here. Recovery is measured from the spike's end to the first
// second after which no attempt times out and no abandoned work is served.
// Arrivals are uniform here: the formula is the fluid model's, and the drain
// rate 1 − A·ρ = 0.25 is a small difference of large flows, which Poisson
// noise at these rates would move by ±10 % or more.
func TestSystemARecovers(t *testing.T) {
	e2e(t, false)
	const rho, a = 0.25, 3.0
	tau := clientTimeout.Seconds()
	t0 := tau / (spikeK*rho - 1)
	want := (a*spikeK*rho-1)*(spikeLen.Seconds()-t0)/(1-a*rho) + tau/(1-rho)
	// Stop 5 quiet seconds after the queue has emptied, or at the horizon.
	quiet := 0
	stop := func(s []specimen.Stats) bool {
		i := len(s) - 1
		if i <= spikeEnd+int(want*0.5) {
			return false
		}
		if s[i].Abandoned == s[i-1].Abandoned && s[i].QueueDepth == 0 {
			quiet++
		} else {
			quiet = 0
		}
		return quiet >= 5
	}
	r := driveWith(t, systemA(), spike(rho, time.Duration(want*1.4)*time.Second), 2, stop, vocab.Uniform)
	// The last second with a timeout or abandoned work served.
	lastBad := -1
	for i := range r.samples {
		if r.abandonedIn(i) > 0 || (i < len(r.timeline) && timeouts(r.timeline[i]) > 0) {
			lastBad = i
		}
	}
	if lastBad >= len(r.samples)-3 {
		t.Fatalf("not recovered by the end of the run (second %d)", len(r.samples))
	}
	got := float64(lastBad + 1 - spikeEnd)
	t.Logf("recovery %.0f s, the model predicts %.1f s", got, want)
	if math.Abs(got-want) > 0.25*want {
		t.Errorf("recovery %.0f s, want %.1f s ± 25 %%", got, want)
	}
}
