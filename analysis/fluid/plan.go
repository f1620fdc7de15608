package fluid

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// SimulatePlan runs the fluid model over the scenario's warmup, spike and
// observation, and returns the plan's document with the model's
// observation, verdict and timeline (`trigger simulate --model fluid`).
func SimulatePlan(in analysis.PlanInputs, stepS, sampleS float64) (analysis.Document, error) {
	doc := analysis.Plan(in)
	sc := doc.Scenario
	retry := Retry{BackoffS: in.ClientBackoffS}
	inner := 1.0
	for i, l := range in.Layers {
		if i == 0 {
			retry.MaxRetries, retry.HasBudget, retry.Budget = l.TriesInFailedState()-1, l.HasBudget, l.Budget
			if r := l.EffectiveRetryProbability(); r < 1 {
				// The fluid model retries every failure it may; a retry
				// probability becomes the budget that gives the same A.
				beta := analysis.CappedAmplification(retry.MaxRetries, r) - 1
				if retry.HasBudget {
					beta = math.Min(beta, retry.Budget)
				}
				retry.HasBudget, retry.Budget = true, beta
			}
			continue
		}
		inner *= l.Amplification()
	}
	cfg := Config{
		Stages:             analysis.SpikeSchedule(sc.DemandPerS, sc.Multiplier, sc.WarmupS, sc.SpikeS, sc.ObserveS),
		CapacityPerS:       sc.CapacityPerS,
		TimeoutS:           sc.PatienceS,
		RetryLagS:          analysis.FailLatency(sc.TimeoutS, in.Layers),
		Retry:              retry,
		InnerAmplification: inner,
		AdmissionBoundS:    sc.AdmissionBoundS,
		StepS:              stepS,
		SampleS:            sampleS,
	}
	if law := doc.LatencyLaw; law != nil {
		// Waits are compared with the wait's patience, τ_out − L₀; under
		// concurrency the service serves X(N), never C.
		cfg.TimeoutS = law.WaitPatienceS(sc.PatienceS)
		cfg.Concurrency, cfg.FloorS = !law.Queue(), law.FloorS
	}
	if f := sc.Fault; f != nil {
		// The fault holds in the spike's place, after the warmup.
		cfg.FaultCapacity, cfg.FaultStartS, cfg.FaultEndS = f.Capacity, sc.WarmupS, sc.WarmupS+f.DurationS
		cfg.SpikeStartS, cfg.SpikeEndS = cfg.FaultStartS, cfg.FaultEndS
	}
	res, err := Simulate(cfg)
	if err != nil {
		return doc, err
	}
	return analysis.WithModelResult(doc, in.Gate, "fluid", res), nil
}
