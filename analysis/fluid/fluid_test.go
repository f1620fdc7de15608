package fluid_test

import (
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
	"github.com/trigger-test/trigger/analysis/fluid/fluidtest"
)

// The fluid model with immediate retries (a lag of one step) is the model
// the full closed form of docs/model.md ("The trap") describes: it must
// match within 2 % everywhere on the grid, report no-trigger where
// (kρ − 1)Δ ≤ τ_out and trapped where A·ρ ≥ 1.
func TestFluidMatchesClosedFormWithImmediateRetries(t *testing.T) {
	for _, g := range fluidtest.Grid([]float64{0.5, 0.6, 0.8, 0.9, 1.0, 1.2}) {
		res := fluidtest.Simulate(t, g, 0.01)
		checkGridVerdict(t, g, res)
		if res.Verdict == analysis.VerdictRecovered {
			want := analysis.RecoveryTime(float64(g.Retries+1), g.Rho, g.K, g.SpikeS, fluidtest.TimeoutS)
			if !fluidtest.Near(res.RecoveryS, want, 0.02) {
				t.Errorf("%v: recovery %.1f s, closed form %.1f s (%+.2f %%)", g, res.RecoveryS, want, 100*(res.RecoveryS/want-1))
			}
		}
	}
}

// In delay form (each retry τ_out after its attempt, as real clients do) the
// simulator must match the lag-corrected closed form within 2 % everywhere,
// and the uncorrected form within 2 % wherever the retry lag is small
// against the recovery (long spikes, or no retries). The largest departure
// from the uncorrected form on this grid, about −7 % at A = 3, A·ρ = 0.8,
// k = 5, Δ = 60 s, is the lag the closed form leaves out.
func TestFluidDelayFormMatchesClosedForm(t *testing.T) {
	worst := 0.0
	for _, g := range fluidtest.Grid([]float64{0.5, 0.6, 0.8, 0.9, 1.0, 1.2}) {
		res := fluidtest.Simulate(t, g, 0)
		checkGridVerdict(t, g, res)
		if res.Verdict != analysis.VerdictRecovered {
			continue
		}
		lagged := analysis.RecoveryTimeWithRetryLag(g.Retries, g.Rho, g.K, g.SpikeS, fluidtest.TimeoutS)
		if !fluidtest.Near(res.RecoveryS, lagged, 0.02) {
			t.Errorf("%v: recovery %.1f s, lag-corrected closed form %.1f s", g, res.RecoveryS, lagged)
		}
		plain := analysis.RecoveryTime(float64(g.Retries+1), g.Rho, g.K, g.SpikeS, fluidtest.TimeoutS)
		dev := res.RecoveryS/plain - 1
		worst = math.Min(worst, dev)
		if (g.SpikeS == 300 || g.Retries == 0) && math.Abs(dev) > 0.02 {
			t.Errorf("%v: recovery %.1f s, closed form %.1f s (%+.2f %%)", g, res.RecoveryS, plain, 100*dev)
		}
		if dev > 0.0005 || dev < -0.08 {
			t.Errorf("%v: delay form departs %+.2f %% from the closed form", g, 100*dev)
		}
	}
	t.Logf("largest departure of the delay form from the uncorrected closed form: %+.2f %%", 100*worst)
}

func checkGridVerdict(t *testing.T, g fluidtest.Case, res analysis.ModelResult) {
	t.Helper()
	switch {
	case !analysis.CheckTrigger(g.K, g.Rho, g.SpikeS, fluidtest.TimeoutS).Valid:
		if res.Verdict != analysis.VerdictNoTrigger || res.TimedOut != 0 {
			t.Errorf("%v: (kρ−1)Δ ≤ τ_out, got %s with %.0f timeouts", g, res.Verdict, res.TimedOut)
		}
	case g.ARho >= 1:
		if res.Verdict != analysis.VerdictTrapped {
			t.Errorf("%v: A·ρ ≥ 1, got %s", g, res.Verdict)
		}
	default:
		if res.Verdict != analysis.VerdictRecovered {
			t.Errorf("%v: got %s, want recovered", g, res.Verdict)
		}
	}
}

// With a budget β and every attempt failing, the work per first attempt is
// 1 + β (docs/model.md, "Retry debt and amplification"), whatever the cap
// above it.
func TestFluidBudgetAmplification(t *testing.T) {
	for _, tc := range []struct {
		retries int
		budget  float64
	}{
		{3, 0.2}, {5, 0.1}, {2, 0.5}, {10, 1},
	} {
		res, err := fluid.Simulate(fluid.Config{
			Stages:       analysis.SpikeSchedule(300, 5, 10, 30, 600), // ρ = 0.75: trapped even at 1 + β
			CapacityPerS: 400, TimeoutS: 1,
			Retry: fluid.Retry{MaxRetries: tc.retries, HasBudget: true, Budget: tc.budget},
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + tc.budget; !fluidtest.Near(res.AmplificationFailed, want, 0.01) {
			t.Errorf("R=%d β=%v: work per first attempt %.4f, want %.4f", tc.retries, tc.budget, res.AmplificationFailed, want)
		}
	}
	// Without a budget the cap sets it: R + 1.
	res, _ := fluid.Simulate(fluid.Config{Stages: analysis.SpikeSchedule(300, 5, 10, 30, 300), CapacityPerS: 400, TimeoutS: 1, Retry: fluid.Retry{MaxRetries: 2}})
	if !fluidtest.Near(res.AmplificationFailed, 3, 0.01) || res.Verdict != analysis.VerdictTrapped {
		t.Errorf("cap 2: A_fail %.4f verdict %s, want 3 and trapped", res.AmplificationFailed, res.Verdict)
	}
}

// An admission bound shorter than the timeout serves no abandoned work and
// the service recovers right after the spike; a bound twice the timeout
// still builds debt (docs/model.md, "Autoscalers, ceilings and admission").
func TestFluidAdmissionBound(t *testing.T) {
	run := func(bound float64) analysis.ModelResult {
		res, err := fluid.Simulate(fluid.Config{
			Stages:       analysis.SpikeSchedule(80, 5, 10, 10, 300), // ρ = 0.4, A = 3: trapped without a bound
			CapacityPerS: 200, TimeoutS: 1,
			Retry:           fluid.Retry{MaxRetries: 2, BackoffS: []float64{0.05}},
			AdmissionBoundS: bound,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	short := run(0.5)
	if short.Abandoned != 0 || short.TimedOut != 0 || short.Refused == 0 {
		t.Errorf("b = τ/2: abandoned %.1f timed out %.1f refused %.1f; want no debt and some refusals", short.Abandoned, short.TimedOut, short.Refused)
	}
	if short.Verdict != analysis.VerdictRecovered || short.RecoveryS > 2 {
		t.Errorf("b = τ/2: %s after %.2f s, want recovered within 2 s", short.Verdict, short.RecoveryS)
	}
	long := run(2)
	if long.Abandoned == 0 || long.Verdict == analysis.VerdictRecovered {
		t.Errorf("b = 2τ: abandoned %.1f verdict %s, want debt and no recovery", long.Abandoned, long.Verdict)
	}
	none := run(0)
	if none.Verdict != analysis.VerdictTrapped {
		t.Errorf("no bound: %s, want trapped", none.Verdict)
	}
}

// The timeline accounts for every unit of work: what arrived was admitted
// or refused, what was admitted was served or is still queued.
func TestFluidTimelineConservation(t *testing.T) {
	res, err := fluid.Simulate(fluid.Config{
		Stages:       analysis.SpikeSchedule(50, 5, 20, 10, 200),
		CapacityPerS: 200, TimeoutS: 1, Retry: fluid.Retry{MaxRetries: 2},
		SampleS: 0.5,
	})
	if err != nil {
		t.Fatal(err)
	}
	var arrived, admitted, refused, served float64
	for _, s := range res.Timeline {
		for _, a := range s.AttemptsPerS {
			arrived += a * 0.5
		}
		admitted += (s.IngressPerS - s.Rejected) * 0.5
		refused += s.Rejected * 0.5
		served += s.ServedPerS * 0.5
		if s.AbandonedPerS > s.ServedPerS+1e-9 || s.FirstOK > s.Sent+1e-9 {
			t.Fatalf("t = %v: abandoned above served or goodput above demand: %+v", s.TS, s)
		}
		if first := s.FirstOK + s.FirstTimeouts + s.FirstErrors; !fluidtest.Near(first, s.Sent, 1e-9) || s.FirstDone != s.Sent || s.Phase == "" {
			t.Fatalf("t = %v: first attempts %v answered, timed out or refused, of %v sent: %+v", s.TS, first, s.Sent, s)
		}
	}
	queued := res.FinalWaitS * 200
	if !fluidtest.Near(arrived, admitted+refused, 1e-9) || !fluidtest.Near(admitted, served+queued, 1e-9) {
		t.Errorf("arrived %.3f admitted %.3f refused %.3f served %.3f queued %.3f", arrived, admitted, refused, served, queued)
	}
	if res.Verdict != analysis.VerdictRecovered || res.PeakWaitS <= 1 || math.IsNaN(res.T0S) || !fluidtest.Near(res.T0S, 4, 0.01) {
		t.Errorf("verdict %s peak %.2f t0 %.2f; want recovered, peak above τ, t0 = 4 s", res.Verdict, res.PeakWaitS, res.T0S)
	}
	if res.LostWorkS <= 0 {
		t.Error("a trigger loses first-attempt work")
	}
}

// A run that ends failed but draining is metastable, with a projection.
func TestFluidMetastableAtHorizon(t *testing.T) {
	// A = 1, ρ = 0.9, k = 5, Δ = 60 s: T_rec = 2,100 s, far beyond a 300 s horizon.
	res, err := fluid.Simulate(fluid.Config{Stages: analysis.SpikeSchedule(360, 5, 10, 60, 300), CapacityPerS: 400, TimeoutS: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != analysis.VerdictMetastable || !fluidtest.Near(res.ProjectedRecoveryS, 2100, 0.02) {
		t.Errorf("%s, projected %.0f s; want metastable projecting 2,100 s", res.Verdict, res.ProjectedRecoveryS)
	}
	if analysis.ApplyBudget(analysis.VerdictRecovered, 200, 120) != analysis.VerdictMetastable || analysis.ApplyBudget(analysis.VerdictRecovered, 100, 120) != analysis.VerdictRecovered {
		t.Error("ApplyBudget")
	}
}

func TestFluidConfigErrors(t *testing.T) {
	for name, cfg := range map[string]fluid.Config{
		"no stages":     {CapacityPerS: 1, TimeoutS: 1},
		"no capacity":   {Stages: analysis.SpikeSchedule(1, 2, 1, 1, 1), TimeoutS: 1},
		"no timeout":    {Stages: analysis.SpikeSchedule(1, 2, 1, 1, 1), CapacityPerS: 1},
		"negative rate": {Stages: []analysis.DemandStage{{DurationS: 1, RatePerS: -1}}, CapacityPerS: 1, TimeoutS: 1},
	} {
		if _, err := fluid.Simulate(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
