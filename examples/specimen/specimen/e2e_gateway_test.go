package specimen_test

import (
	"math"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/loadgen"
)

// TestGatewayAmplification: clients with R = 2 behind a gateway with
// R_g = 2 (try timeout 300 ms, three tries inside the clients' 1 s): once
// failed, every first attempt turns into 3 × 3 = 9 attempts at the pods
// (docs/model.md, "Retry debt and amplification": the factors multiply). The pods'
// ingress per first attempt in the failed window is 9 within 15 %.
func TestGatewayAmplification(t *testing.T) {
	e2e(t, true)
	cfg := specimen.Config{Pods: 1, PodRate: capacity,
		Gateway: specimen.GatewayConfig{Enabled: true, Retries: 2, TryTimeout: 300 * time.Millisecond}}
	const lambda = 0.3 * capacity // ρ = 0.3: A·ρ = 2.7, trapped once triggered
	stages := []loadgen.Stage{
		loadgen.Constant(warmup, lambda),
		loadgen.Constant(4*time.Second, 2*capacity), // k·ρ = 2: the wait passes 300 ms at once
		loadgen.Constant(20*time.Second, lambda),
	}
	r := drive(t, cfg, stages, 2, nil)
	from := int((warmup+4*time.Second)/time.Second) + 3 // failed and past the spike's own attempts
	to := from + 16
	if to >= len(r.samples) {
		t.Fatalf("run too short: %d samples", len(r.samples))
	}
	first := r.delta(from, to, func(s specimen.Stats) uint64 { return s.IngressFirst })
	all := r.delta(from, to, func(s specimen.Stats) uint64 { return s.Ingress() })
	a := float64(all) / float64(first)
	t.Logf("failed window [%d, %d] s: %d attempts at the pods for %d first attempts: A_fail = %.2f", from, to, all, first, a)
	if math.Abs(a-9) > 0.15*9 {
		t.Errorf("A_fail = %.2f, want 9 ± 15 %%", a)
	}
	for i := from; i <= to; i++ {
		if r.abandonedIn(i) == 0 {
			t.Errorf("second %d: no abandoned work: not in the failed state", i)
		}
	}
	// First attempts at the pods are the clients' first attempts.
	end := r.samples[len(r.samples)-1]
	var sent int64
	for _, s := range r.timeline {
		sent += s.Sent
	}
	if end.IngressFirst != uint64(sent) {
		t.Errorf("pods saw %d first attempts, clients sent %d", end.IngressFirst, sent)
	}
}
