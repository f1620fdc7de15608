package convert

import (
	"fmt"

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
func requestConfig(s *scenarios.Scenario, in analysis.PlanInputs, policy retry.Policy) (request.Config, error) {
	arrivals, err := vocab.ParseArrivals(s.Client.Arrivals)
	if err != nil {
		return request.Config{}, fmt.Errorf("convert: %w", err)
	}
	service, err := vocab.ParseServiceTime(s.Service.ServiceTime)
	if err != nil {
		return request.Config{}, fmt.Errorf("convert: %w", err)
	}
	queue, err := vocab.ParseQueue(s.Service.Queue)
	if err != nil {
		return request.Config{}, fmt.Errorf("convert: %w", err)
	}
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
	return request.Config{
		Stages:              analysis.SpikeSchedule(sc.DemandPerS, sc.Multiplier, sc.WarmupS, sc.SpikeS, sc.ObserveS),
		Arrivals:            arrivals,
		Pods:                pods,
		Workers:             max(1, s.Service.Workers),
		PodRatePerS:         podRate,
		ServiceTime:         service,
		ServiceCV:           s.Service.ServiceCV,
		Queue:               queue,
		TimeoutS:            patience,
		Retry:               SimRetry(policy),
		InnerAmplification:  inner,
		DeadlinePropagation: s.Service.DeadlinePropagation,
		AdmissionBoundS:     sc.AdmissionBoundS,
	}, nil
}
