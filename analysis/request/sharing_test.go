package request

import (
	"context"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// sharingConfig is the concurrency law's example of docs/model.md
// ("Latency laws and what sustains a trap"): L₀ = 1 s, C = 100/s,
// τ_out = 3 s, baseline 40/s, a twofold spike of spikeS seconds.
func sharingConfig(spikeS float64, retries int, seed uint64) Config {
	cfg := Config{Stages: analysis.SpikeSchedule(40, 2, 10, spikeS, 60), PodRatePerS: 100, TimeoutS: 3, FloorS: 1,
		Concurrency: true, Seed: seed}
	if retries > 0 {
		cfg.Retry = capRetries(retries, 0)
	}
	return cfg
}

// Under the concurrency law the request model is in steady state where the
// law says: n = λ·L₀/(1 − λ/C) in flight, latency L₀ + n/C, and nothing
// fails at 40/s of 100/s.
func TestSharingSteadyState(t *testing.T) {
	cfg := Config{Stages: []analysis.DemandStage{{DurationS: 60, RatePerS: 40}}, PodRatePerS: 100, TimeoutS: 3, FloorS: 1,
		Concurrency: true, Seed: 1}
	res, err := Simulate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.TimedOut != 0 || res.Verdict != analysis.VerdictNoTrigger {
		t.Fatalf("baseline at 40 %% of C: %d timed out, verdict %s", res.Counts.TimedOut, res.Verdict)
	}
	// n = 40·1/(1 − 0.4) = 66.7: the wait n/C = 0.667 s above the floor.
	var sum float64
	var rows int
	for _, row := range res.Timeline[20:] {
		sum += row.WaitS
		rows++
	}
	if got := sum / float64(rows); math.Abs(got-2.0/3) > 0.05 {
		t.Errorf("mean wait above the floor %.3f s, want n/C = 0.667 s", got)
	}
}

// A spike the law's fluid triggers (7 s, docs/model.md) leaves clients that
// retry twice (A·λ = 120/s ≥ C_τ = 66.7/s) failed for good, and clients
// that never retry (40/s < C_τ) recover; a short spike (2 s) never times
// anyone out.
func TestSharingTrapsByTheLaw(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spikeS  float64
		retries int
		want    analysis.Verdict
	}{
		{"short spike", 2, 2, analysis.VerdictNoTrigger},
		{"long spike, two retries", 10, 2, analysis.VerdictTrapped},
		{"long spike, no retries", 10, 0, analysis.VerdictRecovered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate(context.Background(), sharingConfig(tc.spikeS, tc.retries, 7))
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.want {
				t.Errorf("verdict %s (timed out %d, peak wait %.2f s, final wait %.2f s), want %s",
					res.Verdict, res.Counts.TimedOut, res.PeakWaitS, res.FinalWaitS, tc.want)
			}
		})
	}
}
