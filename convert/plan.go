package convert

import (
	"maps"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// clientLayer is the clients' own retry layer as the model sees it in the
// failed state, where every attempt times out.
func clientLayer(s *scenarios.Scenario, p retry.Policy) analysis.RetryLayer {
	// Clients that do not retry what they see of a failed attempt (a
	// timeout, or a layer's 5xx) bring one attempt per request to a service
	// whose every attempt fails (analysis.SetFailedStateOutcomes).
	l := analysis.RetryLayer{Name: "client", MaxRetries: p.MaxRetries, On: outcomeList(p.On)}
	if p.Budget != nil {
		l.HasBudget, l.Budget = true, *p.Budget
	}
	if p.TokenBucket != nil {
		// In a long failed state nothing refunds the bucket: once it is
		// empty no retry is sent.
		l.Name, l.HasBudget, l.Budget = "client (token bucket)", true, 0
	}
	return l
}

// outcomeList is the outcomes of set, in order (never nil: an empty set
// retries nothing).
func outcomeList(set retry.OutcomeSet) []vocab.Outcome {
	out := []vocab.Outcome{}
	for o := vocab.OutcomeOK + 1; o < vocab.NumOutcomes; o++ {
		if set.Has(o) {
			out = append(out, o)
		}
	}
	return out
}

// planInputs reduces a scenario to the numbers of the model.
func planInputs(s *scenarios.Scenario, policy retry.Policy, sigs []Signal, settleS float64) analysis.PlanInputs {
	in := analysis.PlanInputs{
		Scenario: analysis.ScenarioSection{
			Name:            s.Name,
			Description:     s.Description,
			File:            s.File,
			Hash:            s.Hash,
			Target:          TargetKey(s.Target),
			DemandPerS:      s.Load.Baseline,
			CapacityPerS:    s.Service.Capacity,
			Multiplier:      s.Load.Spike.Multiplier,
			SpikeS:          s.Load.Spike.Duration.Seconds(),
			WarmupS:         s.Load.Warmup.Seconds(),
			ObserveS:        s.Load.Observe.Seconds(),
			TimeoutS:        s.Client.Timeout.Seconds(),
			AdmissionBoundS: s.Service.AdmissionBound.Seconds(),
			Touches:         touchesSection(s.Touches, s.Secrets),
		},
		Layers:          []analysis.RetryLayer{clientLayer(s, policy)},
		ClientBackoffS:  meanBackoffs(policy),
		PodRatePerS:     s.Service.PodRate,
		MaxReplicas:     s.Service.MaxReplicas,
		ScalabilityPeak: s.Service.ScalabilityPeak,
		Gate: analysis.GateSpec{
			MaxRecoveryS:       s.Gate.MaxRecovery.Seconds(),
			AllowTrap:          s.Gate.AllowTrap,
			MaxAmplification:   s.Gate.MaxAmplification,
			MaxTrapProbability: s.Gate.MaxTrapProbability,
		},
	}
	if f := s.Fault; f != nil {
		in.Scenario.Fault = &analysis.FaultSection{Name: f.Name, Capacity: f.Capacity, DurationS: f.Duration.Seconds(),
			Start: append([]string(nil), f.Start...), Stop: append([]string(nil), f.Stop...)}
	}
	for _, l := range s.Layers {
		layer := analysis.RetryLayer{Name: l.Name, MaxRetries: l.MaxRetries, RetryProbability: l.RetryProbability, TimeoutS: l.Timeout.Seconds()}
		if l.On != scenarios.AnyFailure {
			layer.On = outcomeList(l.On)
		}
		if l.Budget != nil {
			layer.HasBudget, layer.Budget = true, *l.Budget
		}
		in.Layers = append(in.Layers, layer)
	}
	analysis.SetFailedStateOutcomes(s.Client.Timeout.Seconds(), in.Layers)
	in.RecoveryHoldS = s.Recovery.Hold.Seconds()
	if s.Service.LatencyLawGiven {
		law := analysis.LatencyLaw{Kind: s.Service.LatencyLaw, FloorS: s.Service.LatencyFloor.Seconds(), CapacityPerS: s.Service.Capacity,
			Source: analysis.LawDeclared, FitR2: math.NaN(), OtherR2: math.NaN(), Note: "the scenario's service.latency_law and latency_floor"}
		in.Law = &law
	}
	if a := s.Service.Autoscaler; a != nil {
		in.Scaler = &analysis.ScalerInputs{Signal: a.Signal, Target: a.Target, DeadTimeS: a.DeadTime.Seconds()}
	}
	in.Scenario.Variables = nil
	if len(s.Variables) > 0 {
		in.Scenario.Variables = maps.Clone(s.Variables)
	}
	if len(s.Target.Requests) > 1 {
		total := 0.0
		for _, r := range s.Target.Requests {
			total += r.Weight
		}
		for _, r := range s.Target.Requests {
			share := analysis.RequestShare{Name: r.Name, Weight: r.Weight, Share: r.Weight / total}
			if r.Cost > 0 {
				share.CostS = analysis.Num(r.Cost.Seconds())
			}
			in.Scenario.Requests = append(in.Scenario.Requests, share)
		}
	}
	judgeAfter(&in, s, sigs, settleS)
	return in
}

// judgeAfter sets how long after the spike a run of the scenario can show
// a trap at the soonest, from its queries' windows and the embedded
// server's scrape interval; a remote server's interval is read only at run
// time, so for it the figure leaves the interval out and says so.
func judgeAfter(in *analysis.PlanInputs, s *scenarios.Scenario, sigs []Signal, settleS float64) {
	need, note := SoonestJudgement(WaitDelays(settleS, sigs, s.Client.Tracers != nil), Resolutions(sigs), settleS)
	if math.IsNaN(need) {
		return
	}
	if s.Prometheus != nil && !embedded(s.Prometheus) {
		if s.Prometheus.ScrapeIntervalGiven {
			note += ", with the scenario's scrape_interval for the remote server's (the run reads its own)"
		} else {
			note += ", plus the remote server's scrape interval, read at run time (set prometheus.scrape_interval for plan to count it)"
		}
	}
	in.JudgeAfterS, in.JudgeAfterNote = need, note
	delays := WaitDelays(settleS, sigs, s.Client.Tracers != nil)
	if _, gauge := delays[analysis.WaitFromService]; !gauge && s.Client.Tracers != nil {
		// The tracers are the best source: each comes back through the
		// wait it meets (Plan adds it).
		in.JudgeAfterTracerTimeoutS = s.Client.Tracers.Timeout.Seconds()
		if in.JudgeAfterTracerTimeoutS <= 0 {
			in.JudgeAfterTracerTimeoutS = vocab.DefaultTracerTimeout.Seconds()
		}
	}
}
