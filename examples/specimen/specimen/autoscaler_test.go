package specimen

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/vocab"
)

func testScaler(sig vocab.ScalerSignal) *scaler {
	c := DefaultConfig()
	c.Autoscaler.Signal = sig
	c.Autoscaler.MinReplicas = 1
	c.Autoscaler.MaxReplicas = 20
	return &scaler{cfg: c.Autoscaler, podRate: 100}
}

func TestScalerRecommend(t *testing.T) {
	cases := []struct {
		name string
		sig  vocab.ScalerSignal
		in   signals
		want int
	}{
		// 300 first attempts/s at c = 100, u* = 0.5: 6 pods.
		{"first attempts", vocab.SignalFirstAttempts, signals{firstRate: 300, ingressRate: 900, ready: 2}, 6},
		// The same service counted by ingress: 18 pods (A·ρ = u*;
		// docs/model.md, "Autoscalers, ceilings and admission").
		{"ingress", vocab.SignalIngress, signals{firstRate: 300, ingressRate: 900, ready: 2}, 18},
		// Paired takes the larger recommendation.
		{"paired", vocab.SignalPaired, signals{firstRate: 300, ingressRate: 900, ready: 2}, 18},
		// CPU: 4 pods at 100 % busy with u* = 0.5 ask for 8.
		{"cpu", vocab.SignalCPU, signals{busy: 1, ready: 4}, 8},
		// Within the 10 % tolerance: keep the ready count.
		{"tolerance", vocab.SignalIngress, signals{ingressRate: 210, ready: 4}, 4},
		// Just outside it: ceil(220/50) = 5.
		{"outside tolerance", vocab.SignalIngress, signals{ingressRate: 230, ready: 4}, 5},
		// Idle: zero, clamped later by decide.
		{"idle", vocab.SignalIngress, signals{ready: 3}, 0},
	}
	for _, tc := range cases {
		if got := testScaler(tc.sig).recommend(tc.in); got != tc.want {
			t.Errorf("%s: recommend = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestScalerDecide(t *testing.T) {
	sc := testScaler(vocab.SignalIngress)
	now := t0
	// Growth limit: from 2 pods at most max(ceil(2·2), 3) = 4 per decision.
	if got := sc.decide(now, 2, signals{ingressRate: 900, ready: 2}); got != 4 {
		t.Fatalf("first step %d, want 4", got)
	}
	if got := sc.decide(now.Add(time.Second), 4, signals{ingressRate: 900, ready: 2}); got != 8 {
		t.Fatalf("second step %d, want 8", got)
	}
	// Ceiling: 20.
	if got := sc.decide(now.Add(2*time.Second), 16, signals{ingressRate: 5000, ready: 16}); got != 20 {
		t.Fatalf("ceiling %d, want 20", got)
	}
	// Load gone: the stabilization window (30 s) keeps the largest recent
	// recommendation (100 pods, capped to 20), so no scale-down yet.
	if got := sc.decide(now.Add(10*time.Second), 20, signals{ingressRate: 50, ready: 20}); got != 20 {
		t.Fatalf("inside stabilization %d, want 20", got)
	}
	// After the window, down to the floor of the recent ones (1).
	if got := sc.decide(now.Add(45*time.Second), 20, signals{ingressRate: 50, ready: 20}); got != 1 {
		t.Fatalf("after stabilization %d, want 1", got)
	}
}

// TestScalerBounds: whatever the signals, a decision stays within
// [min, max], never grows faster than the limit, and never shrinks below
// what any recommendation of the stabilization window asked for.
func TestScalerBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := testScaler(rapid.SampledFrom([]vocab.ScalerSignal{vocab.SignalCPU, vocab.SignalIngress, vocab.SignalFirstAttempts, vocab.SignalPaired}).Draw(t, "signal"))
		cur := rapid.IntRange(1, 20).Draw(t, "start")
		now := t0
		for range rapid.IntRange(1, 50).Draw(t, "steps") {
			now = now.Add(time.Duration(rapid.IntRange(1, 10_000).Draw(t, "dt_ms")) * time.Millisecond)
			sig := signals{
				ingressRate: rapid.Float64Range(0, 5000).Draw(t, "ingress"),
				busy:        rapid.Float64Range(0, 1).Draw(t, "busy"),
				ready:       rapid.IntRange(1, cur).Draw(t, "ready"),
			}
			sig.firstRate = sig.ingressRate * rapid.Float64Range(0, 1).Draw(t, "first share")
			got := sc.decide(now, cur, sig)
			if got < sc.cfg.MinReplicas || got > sc.cfg.MaxReplicas {
				t.Fatalf("decision %d outside [%d, %d]", got, sc.cfg.MinReplicas, sc.cfg.MaxReplicas)
			}
			if got > max(2*cur, cur+1) {
				t.Fatalf("grew from %d to %d", cur, got)
			}
			if got < cur {
				most := 0
				for _, h := range sc.history {
					most = max(most, h.n)
				}
				if floor := min(max(most, sc.cfg.MinReplicas), sc.cfg.MaxReplicas); got < floor {
					t.Fatalf("scaled down to %d below %d, the largest recommendation of the window", got, floor)
				}
			}
			cur = got
		}
	})
}

// offer submits first attempts at rate per second until ctx ends; the items
// are abandoned by nobody (their clients wait).
func offer(ctx context.Context, s *Server, rate float64, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.svc.submit(newItem(KindFirst, time.Now(), false))
		}
	}
}

func TestAutoscalerDeadTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Pods: 1, PodRate: 100, QueueMode: vocab.QueueShared}
		cfg.Autoscaler = AutoscalerConfig{Enabled: true, Signal: vocab.SignalIngress, Target: 0.5,
			SyncPeriod: time.Second, MetricWindow: 2 * time.Second, DeadTime: 3 * time.Second,
			DownscaleStabilization: 5 * time.Second, MinReplicas: 1, MaxReplicas: 8}
		s := newTestServer(t, cfg)
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Add(1)
		go offer(ctx, s, 180, &wg) // 180/s wants ceil(3.6) = 4 pods at u* = 0.5
		time.Sleep(2500 * time.Millisecond)
		if st := s.Stats(); st.PodsDesired < 2 || st.PodsReady != 1 {
			t.Fatalf("before the dead time: desired %d ready %d", st.PodsDesired, st.PodsReady)
		}
		time.Sleep(6 * time.Second)
		if st := s.Stats(); st.PodsDesired != 4 || st.PodsReady != 4 {
			t.Fatalf("after the dead time: desired %d ready %d", st.PodsDesired, st.PodsReady)
		}
		cancel()
		wg.Wait()
		// Idle: the stabilization window passes, then back to the floor.
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if st := s.Stats(); st.PodsDesired != 1 || st.PodsReady != 1 {
			t.Fatalf("after the load: desired %d ready %d", st.PodsDesired, st.PodsReady)
		}
	})
}
