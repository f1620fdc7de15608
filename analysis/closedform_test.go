package analysis

import (
	"math"
	"testing"

	"github.com/trigger-test/trigger/vocab"
)

func near(got, want, relTol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= relTol*math.Max(math.Abs(want), 1e-12)
}

// The worked example of docs/model.md ("The trap", phases): A = 1,
// ρ = 0.5, k = 10, Δ = 300 s, τ_out = 10 s gives t0 = 2.5 s and
// T_rec = 2,400 s.
func TestWorkedExample(t *testing.T) {
	c := CheckTrigger(10, 0.5, 300, 10)
	if !c.Valid || c.T0S == nil || !near(*c.T0S, 2.5, 1e-12) {
		t.Fatalf("trigger check = %+v, want valid with t0 = 2.5 s", c)
	}
	if c.OverloadS != 1200 || c.Margin != 120 {
		t.Errorf("overload %v s margin %v, want 1200 s and 120", c.OverloadS, c.Margin)
	}
	if got := RecoveryTime(1, 0.5, 10, 300, 10); !near(got, 2400, 1e-12) {
		t.Errorf("T_rec = %v s, want 2400 s", got)
	}
	// The long-spike form drops the τ_out terms: 300·4/0.5 = 2400 − 2.5·4/0.5 + 20 ... here 2400.
	if got := recoveryTimeLongSpike(1, 0.5, 10, 300); !near(got, 2400, 1e-12) {
		t.Errorf("long-spike T_rec = %v s, want 2400 s", got)
	}
}

func TestAmplification(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layers []RetryLayer
		want   float64
	}{
		// No layer at all: one unit of work per first attempt.
		{"none", nil, 1},
		// A cap of R retries: R + 1.
		{"cap 2", []RetryLayer{{MaxRetries: 2}}, 3},
		// A budget limits the cap: 1 + β.
		{"cap 3 budget 0.2", []RetryLayer{{MaxRetries: 3, HasBudget: true, Budget: 0.2}}, 1.2},
		// A budget larger than the cap allows does not raise A.
		{"cap 1 budget 5", []RetryLayer{{MaxRetries: 1, HasBudget: true, Budget: 5}}, 2},
		// Retry probability r = 0.5 with cap 2: 1 + 0.5 + 0.25.
		{"probabilistic", []RetryLayer{{MaxRetries: 2, RetryProbability: 0.5}}, 1.75},
		// Client ×3 behind gateway ×3: the factors multiply to 9.
		{"client and gateway", []RetryLayer{{Name: "client", MaxRetries: 2}, {Name: "gateway", MaxRetries: 2}}, 9},
		// A budget layer contributes (1 + β): 3 × 1.2.
		{"client and budgeted mesh", []RetryLayer{{MaxRetries: 2}, {MaxRetries: 3, HasBudget: true, Budget: 0.2}}, 3.6},
	} {
		if got := stackAmplification(tc.layers...); !near(got, tc.want, 1e-12) {
			t.Errorf("%s: A = %v, want %v", tc.name, got, tc.want)
		}
	}
	if trapThreshold(4) != 0.25 || !trapped(4, 0.25) || trapped(4, 0.24) {
		t.Error("trap threshold 1/A: A = 4 traps at ρ = 0.25 and not below")
	}
}

func TestTriggerCheck(t *testing.T) {
	for _, tc := range []struct {
		name               string
		k, rho, spike, tau float64
		valid              bool
	}{
		// k·ρ ≤ 1: no spike length is a trigger.
		{"kρ below 1", 3, 0.25, 1e6, 1, false},
		{"kρ exactly 1", 4, 0.25, 1e6, 1, false},
		// (kρ − 1)Δ = 0.25·3 = 0.75 s ≤ 1 s.
		{"too short", 5, 0.25, 3, 1, false},
		// Equality is not enough: the wait must exceed τ_out.
		{"exactly the timeout", 5, 0.25, 4, 1, false},
		// (kρ − 1)Δ = 0.25·10 = 2.5 s > 1 s.
		{"trigger", 5, 0.25, 10, 1, true},
	} {
		c := CheckTrigger(tc.k, tc.rho, tc.spike, tc.tau)
		if c.Valid != tc.valid {
			t.Errorf("%s: valid = %v, want %v (%+v)", tc.name, c.Valid, tc.valid, c)
		}
	}
	// The smallest k and Δ sit exactly on the boundary.
	kMin := minMultiplier(0.25, 10, 1)
	if !near(kMin, 4.4, 1e-12) || CheckTrigger(kMin*0.999, 0.25, 10, 1).Valid || !CheckTrigger(kMin*1.001, 0.25, 10, 1).Valid {
		t.Errorf("minMultiplier = %v, want 4.4 on the boundary", kMin)
	}
	dMin := MinSpike(5, 0.25, 1)
	if !near(dMin, 4, 1e-12) || !CheckTrigger(5, 0.25, dMin*1.001, 1).Valid {
		t.Errorf("MinSpike = %v, want 4 s", dMin)
	}
	if !math.IsInf(MinSpike(3, 0.25, 1), 1) {
		t.Error("MinSpike with k·ρ < 1 must be +Inf")
	}
	// A step on an autoscaled service with a 30 s dead time: τ_out/τ = 1/3.
	if stepTriggers(1.3, 1, 30, 10) || !stepTriggers(1.34, 1, 30, 10) {
		t.Error("stepTriggers must hold iff kρ − 1 > τ_out/τ")
	}
}

func TestRecoveryEdges(t *testing.T) {
	// Trapped: infinite.
	if !math.IsInf(RecoveryTime(3, 0.4, 5, 10, 1), 1) {
		t.Error("A·ρ = 1.2 must not recover")
	}
	// Not a trigger: the spike's 0.75 s backlog drains at 1 − ρ = 0.75 in 1 s.
	if got := RecoveryTime(3, 0.25, 5, 3, 1); !near(got, 1, 1e-12) {
		t.Errorf("no-trigger drain = %v s, want 1 s", got)
	}
	// The shipped recovers.hcl: ρ = 0.25, A = 3, k = 5, Δ = 10 s, τ_out = 1 s.
	if got := RecoveryTime(3, 0.25, 5, 10, 1); !near(got, 2.75*6/0.25+1/0.75, 1e-12) {
		t.Errorf("T_rec = %v s", got)
	}
	// The lag correction vanishes without retries and shortens recovery with them.
	if RecoveryTimeWithRetryLag(0, 0.5, 10, 300, 10) != RecoveryTime(1, 0.5, 10, 300, 10) {
		t.Error("lag correction must vanish for R = 0")
	}
	if !(RecoveryTimeWithRetryLag(2, 0.25, 5, 10, 1) < RecoveryTime(3, 0.25, 5, 10, 1)) {
		t.Error("lag correction must shorten the recovery")
	}
}

func TestPredictedWaitPhases(t *testing.T) {
	a, rho, k, spike, tau := 3.0, 0.25, 5.0, 10.0, 1.0
	t0 := TriggerTime(k, rho, tau) // 4 s
	if got := predictedWait(a, rho, k, spike, tau, t0); !near(got, tau, 1e-12) {
		t.Errorf("w(t0) = %v, want τ_out", got)
	}
	peak := peakWait(a, rho, k, spike, tau)
	if got := predictedWait(a, rho, k, spike, tau, spike); !near(got, peak, 1e-12) {
		t.Errorf("w(Δ) = %v, want the peak %v", got, peak)
	}
	trec := RecoveryTime(a, rho, k, spike, tau)
	if got := predictedWait(a, rho, k, spike, tau, spike+trec); math.Abs(got) > 1e-9 {
		t.Errorf("w(Δ + T_rec) = %v, want 0", got)
	}
	if got := predictedWait(a, rho, k, spike, tau, spike+trec/2); !(got > 0) {
		t.Errorf("w halfway through recovery = %v, want positive", got)
	}
}

func TestScalerRules(t *testing.T) {
	for _, tc := range []struct {
		signal  vocab.ScalerSignal
		target  float64
		a       float64
		escapes bool
	}{
		// A first-attempt signal at 50 % with A = 3: 0.5 ≥ 1/3, trapped.
		{vocab.SignalFirstAttempts, 0.5, 3, false},
		// At 30 % it sits below 1/A and escapes.
		{vocab.SignalFirstAttempts, 0.3, 3, true},
		// Ingress, CPU and paired signals escape whenever u* < 1.
		{vocab.SignalIngress, 0.5, 3, true},
		{vocab.SignalCPU, 0.9, 9, true},
		{vocab.SignalPaired, 0.7, 3, true},
		{vocab.SignalIngress, 1, 3, false},
	} {
		if got := scalerEscape(tc.signal, tc.target, tc.a); got.Escapes != tc.escapes || got.Reason == "" {
			t.Errorf("%s at %v with A = %v: %+v, want escapes = %v", tc.signal, tc.target, tc.a, got, tc.escapes)
		}
	}
}

func TestCeilingAndBound(t *testing.T) {
	// A = 3, λ = 100/s, c = 50/s per pod: M* = 6.
	if got := ceilingFloor(3, 100, 50); got != 6 {
		t.Errorf("M* = %v, want 6", got)
	}
	for _, tc := range []struct {
		peak            int
		empty           bool
		lowest, highest int
	}{
		// 0.8·10 = 8: ceilings 7 and 8 are safe.
		{10, false, 7, 8},
		// 0.8·8 = 6.4: nothing above 6 and at most 6.4.
		{8, true, 0, 0},
	} {
		b := safeCeilingBand(3, 100, 50, tc.peak)
		if b.Empty != tc.empty || b.LowestPods != tc.lowest || b.HighestPods != tc.highest {
			t.Errorf("N_max %d: band %+v", tc.peak, b)
		}
	}
	if ceilingDrainRate(50, 6, 6) != 0 || ceilingDrainRate(50, 8, 6) != 100 {
		t.Error("drain rate c·(M − M*), zero at or below the floor")
	}
	if !admissionBoundHolds(0.5, 1) || admissionBoundHolds(2, 1) || admissionBoundHolds(0, 1) {
		t.Error("admission bound must hold iff 0 < b < τ_out")
	}
}

func TestCollapseLaw(t *testing.T) {
	for _, theta := range []float64{2, 5, 10, 100, 1000} {
		lc, rs := CollapseCeiling(1, theta)
		// ρ* solves θ(1 − ρ) = ln(1 + θρ).
		if got := theta*(1-rs) - math.Log1p(theta*rs); math.Abs(got) > 1e-9 {
			t.Errorf("θ = %v: residual %v at ρ* = %v", theta, got, rs)
		}
		// λ_c is the maximum of μρ(1 − q) over ρ.
		best := 0.0
		for i := 1; i < 100000; i++ {
			best = math.Max(best, fixedPointDemand(1, theta, float64(i)/100000, 0))
		}
		if !near(lc, best, 1e-6) {
			t.Errorf("θ = %v: λ_c = %v, grid maximum %v", theta, lc, best)
		}
	}
	// For large θ the asymptote approaches λ_c.
	lc, _ := CollapseCeiling(1, 1000)
	if !near(CollapseCeilingAsymptote(1, 1000), lc, 1e-3) {
		t.Errorf("asymptote %v vs λ_c %v", CollapseCeilingAsymptote(1, 1000), lc)
	}
	if RecoveryThreshold(10, 4) != 2.5 || RecoveryThreshold(10, 0) != 0 {
		t.Error("λ_r = μ/R, zero for unlimited attempts")
	}
	for _, tc := range []struct {
		attempts int
		theta    float64
		want     bool
	}{
		{1, 100, false}, // no retries: no loop
		{2, 2, false},   // (R − 1)θ = 2: not above 2
		{2, 2.5, true},
		{3, 1.5, true},
		{0, 0.1, true}, // unlimited
	} {
		if got := HasHysteresis(tc.attempts, tc.theta); got != tc.want {
			t.Errorf("HasHysteresis(%d, %v) = %v", tc.attempts, tc.theta, got)
		}
	}
	// The fixed-point curve with finite attempts lies above the R = ∞ curve.
	if !(fixedPointDemand(1, 5, 0.9, 3) > fixedPointDemand(1, 5, 0.9, 0)) {
		t.Error("finite attempts must need more demand for the same utilization")
	}
}

func TestSizing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"Little", littleL(100, 0.2), 20},
		{"drain", drainTime(500, 200, 100), 5},
		{"drain never", drainTime(500, 100, 100), math.Inf(1)},
		{"spike backlog", spikeBacklog(300, 200, 10), 1000},
		{"no backlog", spikeBacklog(100, 200, 10), 0},
		{"bounded queue by wait", boundedQueue(200, 0.5, 100, 10), 100},
		{"bounded queue by recovery", boundedQueue(200, 5, 100, 2), 200},
		{"scaling target", scalingTarget(0.8, 2), 0.4},
		{"M/M/1", mm1Wait(0.5, 0.01), 0.01},
		{"Kingman exponential is M/M/1", kingmanWait(0.01, 0.5, 1, 1), 0.01},
		{"Kingman deterministic service halves it", kingmanWait(0.01, 0.5, 1, 0), 0.005},
		{"waste", wasteRatio(25, 100), 0.25},
	} {
		if !near(tc.got, tc.want, 1e-12) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if !admitByDeadline(0.2, 0.05, 0.01, 0.3) || admitByDeadline(0.2, 0.05, 0.1, 0.3) {
		t.Error("admitByDeadline")
	}
}
