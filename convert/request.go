package convert

import (
	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// requestConfig is the scenario as the request-level model runs it: the
// same stages, capacity, timeout and admission bound as the fluid model
// (in), the scenario's arrival process, pods × workers servers with the
// service block's service-time law and queue, the clients' own retry
// policy through retry.Retrier (SimRetry), and the other retry layers
// as hidden work per failing attempt. A service given by its capacity alone
// is one pod at that rate. Seed is left zero.
func requestConfig(s *scenarios.Scenario, in analysis.PlanInputs, policy retry.Policy) request.Config {
	sc := in.Scenario
	pods, podRate := s.Service.Pods, s.Service.PodRate
	if pods <= 0 || podRate <= 0 {
		pods, podRate = 1, s.Service.Capacity
	}
	inner := 1.0
	for _, l := range in.Layers[1:] {
		inner *= l.Amplification()
	}
	// Attempts fail once they wait past the shortest patience in front of
	// the service, a layer's per-try timeout when it is shorter than τ_out.
	patience, _ := analysis.Patience(sc.TimeoutS, in.Layers)
	cfg := request.Config{
		Stages:              analysis.SpikeSchedule(sc.DemandPerS, sc.Multiplier, sc.WarmupS, sc.SpikeS, sc.ObserveS),
		Arrivals:            s.Client.Arrivals,
		Pods:                pods,
		Workers:             max(1, s.Service.Workers),
		PodRatePerS:         podRate,
		ServiceTime:         s.Service.ServiceTime,
		ServiceCV:           s.Service.ServiceCV,
		Queue:               s.Service.Queue,
		TimeoutS:            patience,
		Retry:               simRetryModel(policy, timedOutAs(in.Layers[0])),
		InnerAmplification:  inner,
		DeadlinePropagation: s.Service.DeadlinePropagation,
		AdmissionBoundS:     sc.AdmissionBoundS,
	}
	if l := in.Law; l != nil {
		// The declared law: its floor, and under concurrency no queue.
		cfg.FloorS, cfg.Concurrency = l.FloorS, !l.Queue()
	}
	if f := sc.Fault; f != nil {
		// The fault holds in the spike's place, after the warmup.
		cfg.FaultCapacity, cfg.FaultStartS, cfg.FaultEndS = f.Capacity, sc.WarmupS, sc.WarmupS+f.DurationS
		cfg.SpikeStartS, cfg.SpikeEndS = cfg.FaultStartS, cfg.FaultEndS
	}
	return cfg
}

// timedOutAs is what the clients see of an attempt the request model times
// out: the client layer's Sees, a timeout when not worked out.
func timedOutAs(client analysis.RetryLayer) vocab.Outcome {
	if client.Sees == vocab.OutcomeOK {
		return vocab.OutcomeTimeout
	}
	return client.Sees
}
