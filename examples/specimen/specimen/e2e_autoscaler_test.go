package specimen_test

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// Autoscaler runs: pods of c = 25/s behind one shared queue, 2 ready at the
// start (C = 50), u* = 0.5, sync 1 s, window 2 s, dead time τ = 4 s, a
// ceiling of 20. A sustained step from 12.5 to 100 first attempts/s
// (k·ρ = 2 at the start: k·ρ − 1 = 1 > τ_out/τ = 0.25) triggers well before
// the first new pod is ready (docs/model.md, "The trap"); once failed, the pods
// see A·λ = 300 attempts/s.
const (
	podRate  = 25.0
	stepFrom = 12.5
	stepTo   = 100.0
	stepLen  = 32 * time.Second
)

func scaled(sig vocab.ScalerSignal) specimen.Config {
	return specimen.Config{Pods: 2, PodRate: podRate, QueueMode: vocab.QueueShared,
		Autoscaler: specimen.AutoscalerConfig{Enabled: true, Signal: sig, Target: 0.5,
			SyncPeriod: time.Second, MetricWindow: 2 * time.Second, Tolerance: 0.1, ScaleUpFactor: 2,
			DeadTime: 4 * time.Second, DownscaleStabilization: time.Minute, MinReplicas: 2, MaxReplicas: 20}}
}

func step() []loadgen.Stage {
	return []loadgen.Stage{loadgen.Constant(warmup, stepFrom), loadgen.Constant(stepLen, stepTo)}
}

// stepEnd is the index of the last full second of the step.
var stepEnd = int((warmup+stepLen)/time.Second) - 1

// TestAutoscalerFirstAttemptsTrapped: a scaler on first attempts holds ρ at
// u* = 0.5 ≥ 1/A = 1/3, so after the trigger the service stays failed
// (docs/model.md, "Autoscalers, ceilings and admission"): about 8 pods (C = 200) for 300 attempts/s,
// far from the ceiling that counting every attempt would reach.
func TestAutoscalerFirstAttemptsTrapped(t *testing.T) {
	e2e(t, true)
	r := drive(t, scaled(vocab.SignalFirstAttempts), step(), 2, nil)
	for i := stepEnd - 10; i <= stepEnd; i++ {
		if r.abandonedIn(i) == 0 {
			t.Errorf("second %d: no abandoned work served: the service recovered", i)
		}
	}
	if p := r.samples[stepEnd].PodsReady; p >= 20 {
		t.Errorf("%d pods ready: the scaler went to its ceiling as if it counted every attempt", p)
	}
}

// TestAutoscalerCountingRetriesRecovers: a scaler that counts every attempt
// (ingress), or pairs first attempts with ingress, sizes C so that A·ρ is
// at u* (here up to the ceiling of 20 pods, C = 500 > A·λ = 300; the
// ceiling M* = 12 of docs/model.md, "Autoscalers, ceilings and
// admission"), and the service recovers: in the last 10 s of the
// step no attempt times out and no abandoned work is served.
func TestAutoscalerCountingRetriesRecovers(t *testing.T) {
	for _, sig := range []vocab.ScalerSignal{vocab.SignalIngress, vocab.SignalPaired} {
		t.Run(string(sig), func(t *testing.T) {
			e2e(t, true)
			r := drive(t, scaled(sig), step(), 2, nil)
			if r.delta(0, stepEnd, func(s specimen.Stats) uint64 { return s.Abandoned }) == 0 {
				t.Fatal("no abandoned work at all: the step was no trigger")
			}
			for i := stepEnd - 10; i <= stepEnd; i++ {
				if r.abandonedIn(i) > 0 || timeouts(r.timeline[i]) > 0 {
					t.Errorf("second %d: %d abandoned, %d timeouts: not recovered", i, r.abandonedIn(i), timeouts(r.timeline[i]))
				}
			}
			t.Logf("pods ready at the end: %d", r.samples[stepEnd].PodsReady)
		})
	}
}
