package analysis

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/vocab"
)

// The concurrency law's figures on docs/model.md's example: L₀ = 1 s,
// C = 100/s, τ_out = 3 s.
func TestConcurrencyLawFigures(t *testing.T) {
	l := LatencyLaw{Kind: vocab.LawConcurrency, FloorS: 1, CapacityPerS: 100}
	if got := l.InFlightAtTimeout(3); math.Abs(got-200) > 1e-9 {
		t.Errorf("N_τ = %v, want 200", got)
	}
	if got := l.CapacityAtTimeout(3); math.Abs(got-200.0/3) > 1e-9 {
		t.Errorf("C_τ = %v, want 66.7", got)
	}
	if got := l.Throughput(l.InFlightAtTimeout(3)); math.Abs(got-l.CapacityAtTimeout(3)) > 1e-9 {
		t.Errorf("X(N_τ) = %v, want C_τ", got)
	}
	if !TrapHoldsUnder(l, 3, 40, 3) || TrapHoldsUnder(l, 1, 40, 3) {
		t.Errorf("λ = 40/s: A = 3 must hold the failed state (120 ≥ 66.7), A = 1 must not")
	}
	if n := l.Equilibrium(40); math.Abs(l.Throughput(n)-40) > 1e-9 {
		t.Errorf("X(equilibrium at 40) = %v", l.Throughput(n))
	}
	// k·ρ = 0.8 < 1 against C, so FIFO's closed form cannot trigger; the
	// law's fluid gets within 10 % of the patience in 5 s and past it in 7.
	if CheckTrigger(2, 0.4, 5, 3).Valid {
		t.Fatal("the closed form should not trigger")
	}
	near := CheckTriggerUnder(l, 40, 2, 5, 3)
	if near.Valid || near.Margin < 0.9 {
		t.Errorf("Δ = 5 s: %+v, want a margin in [0.9, 1)", near)
	}
	long := CheckTriggerUnder(l, 40, 2, 7, 3)
	if !long.Valid || long.T0S == nil || *long.T0S > 7 {
		t.Errorf("Δ = 7 s: %+v, want a trigger within the spike", long)
	}
	if d := MinSpikeUnder(l, 40, 2, 3); !(d > 5 && d < 7) {
		t.Errorf("shortest spike = %v, want between 5 and 7 s", d)
	}
	if k := MinMultiplierUnder(l, 40, 5, 3); !(k > 2 && k < 1/0.4) {
		t.Errorf("least k = %v, want between 2 and 2.5 (below C)", k)
	}
}

// Under the queue law the trigger is the closed form at the wait's
// patience, the timeout less the floor.
func TestQueueLawIsTheClosedFormLessTheFloor(t *testing.T) {
	for _, floor := range []float64{0, 0.01, 0.3} {
		l := LatencyLaw{Kind: vocab.LawQueue, FloorS: floor, CapacityPerS: 200}
		got := CheckTriggerUnder(l, 100, 3, 2, 1)
		want := CheckTrigger(3, 0.5, 2, 1-floor)
		if got.Valid != want.Valid || math.Abs(got.Margin-want.Margin) > 1e-12 {
			t.Errorf("floor %v: %+v, want %+v", floor, got, want)
		}
		if l.CapacityAtTimeout(1) != 200 {
			t.Errorf("the queue serves C at its patience")
		}
	}
}

// Fitted to noisy seconds drawn from either law over a healthy run's
// range, FitLatencyLaw names the law and gets L₀ and C within 15 %.
func TestFitTellsTheLawsApart(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, tc := range []struct {
		name string
		law  LatencyLaw
		maxN float64
	}{
		{"concurrency", LatencyLaw{Kind: vocab.LawConcurrency, FloorS: 1, CapacityPerS: 100}, 190},
		{"queue behind a floor", LatencyLaw{Kind: vocab.LawQueue, FloorS: 0.3, CapacityPerS: 150}, 400},
		{"queue behind servers", LatencyLaw{Kind: vocab.LawQueue, FloorS: 0.01, CapacityPerS: 200}, 180},
	} {
		for trial := 0; trial < 20; trial++ {
			var pts []LawPoint
			for i := 0; i < 60; i++ {
				n := tc.maxN * rng.Float64()
				l := tc.law.Latency(n) * (1 + 0.05*rng.NormFloat64())
				pts = append(pts, LawPoint{InFlight: n, LatencyS: l})
			}
			got := FitLatencyLaw(pts, 1)
			if tc.law.FloorS >= 1 {
				got = FitLatencyLaw(pts, 3)
			}
			if got.Kind != tc.law.Kind || got.Source != LawFitted {
				t.Fatalf("%s, trial %d: fitted %s (%s): %s", tc.name, trial, got.Kind, got.Source, got.Note)
			}
			if e := math.Abs(got.CapacityPerS/tc.law.CapacityPerS - 1); e > 0.15 {
				t.Errorf("%s, trial %d: C = %.1f, want %.1f", tc.name, trial, got.CapacityPerS, tc.law.CapacityPerS)
			}
			if e := math.Abs(got.FloorS - tc.law.FloorS); e > 0.15*tc.law.FloorS+0.03 { // 3 % of the patience at most: a floor that small changes no figure
				t.Errorf("%s, trial %d: L₀ = %.3f, want %.3f", tc.name, trial, got.FloorS, tc.law.FloorS)
			}
		}
	}
}

// A latency that never grew says its floor and nothing of the law: the
// queue is assumed and C is not claimed.
func TestFitOfAFlatLatencyAssumesTheQueue(t *testing.T) {
	var pts []LawPoint
	for i := 0; i < 30; i++ {
		pts = append(pts, LawPoint{InFlight: float64(i % 5), LatencyS: 0.012 + 0.001*float64(i%3)})
	}
	got := FitLatencyLaw(pts, 1)
	if got.Source != LawAssumed || got.Kind != vocab.LawQueue || !math.IsNaN(got.CapacityPerS) || got.Note == "" {
		t.Fatalf("%+v", got)
	}
	if math.Abs(got.FloorS-0.013) > 0.002 {
		t.Errorf("floor %v, want the median 0.013", got.FloorS)
	}
	if few := FitLatencyLaw(pts[:3], 1); few.Source != LawAssumed || few.Note == "" {
		t.Errorf("three points: %+v", few)
	}
}

// plan under a declared concurrency law: the spike is judged by the law,
// never by k·ρ against C, and no recovery time is promised.
func TestPlanUnderConcurrency(t *testing.T) {
	law := LatencyLaw{Kind: vocab.LawConcurrency, FloorS: 1, CapacityPerS: 100, Source: LawDeclared}
	in := func(spikeS float64, retries int) PlanInputs {
		return PlanInputs{Scenario: ScenarioSection{DemandPerS: 40, CapacityPerS: 100, Multiplier: 2, SpikeS: spikeS, TimeoutS: 3, ObserveS: 60},
			Layers: []RetryLayer{{Name: "client", MaxRetries: retries}}, Law: &law}
	}
	for _, tc := range []struct {
		spikeS  float64
		retries int
		want    Verdict
	}{
		{8, 2, VerdictTrapped},   // A·λ = 120 ≥ C_τ = 66.7
		{8, 0, VerdictRecovered}, // A·λ = 40 < 66.7
		{5, 2, VerdictNoTrigger}, // 92 % of the patience
	} {
		doc := Plan(in(tc.spikeS, tc.retries))
		if doc.Prediction.Verdict != tc.want && doc.Verdict != tc.want {
			t.Errorf("Δ = %v s, R = %d: %s, want %s", tc.spikeS, tc.retries, doc.Verdict, tc.want)
		}
		if doc.LatencyLaw == nil || doc.LatencyLaw.Kind != vocab.LawConcurrency || doc.Prediction.CapacityAtTimeoutPerS == nil {
			t.Errorf("Δ = %v s: the law or C_τ is missing: %+v", tc.spikeS, doc.LatencyLaw)
		}
		if r := Value(doc.Prediction.RecoveryS); tc.want == VerdictRecovered && !math.IsNaN(r) {
			t.Errorf("a recovery time of %v s from the queue's formula under concurrency", r)
		}
		if tc.want == VerdictNoTrigger {
			near := false
			for _, rec := range doc.Prediction.Recommendations {
				near = near || strings.Contains(rec, "near the boundary")
			}
			if !near {
				t.Errorf("a spike at 92 %% of the patience is not called near the boundary: %q", doc.Prediction.Recommendations)
			}
		}
	}
	// Without the law the closed form calls the same spike no trigger at all.
	assumed := in(8, 2)
	assumed.Law = nil
	if v := Plan(assumed).Verdict; v != VerdictNoTrigger {
		t.Errorf("the queue's closed form: %s", v)
	}
	// The campaign's model boundary follows the law too.
	sc := CampaignScenario{SpikeS: 8, Multiplier: 2, TimeoutS: 3, Law: &law}
	if k := sc.SmallestTrap("multiplier", 3, 0.4); !(k < 2) {
		t.Errorf("smallest trapping k under the law = %v, want below 2", k)
	}
	if k := sc.SmallestTrap("multiplier", 1, 0.4); !math.IsInf(k, 1) {
		t.Errorf("A = 1 never traps under the law (40 < C_τ): %v", k)
	}
}

// A law written with its unknowns as null reads back with them NaN, not
// 0 (a replayed run that stopped before the spike keeps the plan's law).
func TestLawReadsBackItsNulls(t *testing.T) {
	doc := Document{Kind: "plan", LatencyLaw: &LatencyLaw{Kind: vocab.LawConcurrency, FloorS: 1, CapacityPerS: math.NaN(), Source: LawAssumed, FitR2: math.NaN(), OtherR2: math.NaN()}}
	b, err := doc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	l := back.LatencyLaw
	if l == nil || l.Kind != vocab.LawConcurrency || l.FloorS != 1 || !math.IsNaN(l.CapacityPerS) || !math.IsNaN(l.FitR2) || !math.IsNaN(l.OtherR2) {
		t.Fatalf("%+v", l)
	}
	again, _ := back.MarshalJSON()
	if string(again) != string(b) {
		t.Errorf("not the same document:\n%s\n%s", b, again)
	}
}
