package runner

import (
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/scenarios"
)

// RetryPolicy converts the scenario's client retry block into the driver's
// policy; the scenario has been validated, so an error here is a bug.
func RetryPolicy(c scenarios.Client) (loadgen.RetryPolicy, error) {
	on, err := loadgen.ParseOutcomeSet(c.Retry.On)
	if err != nil {
		return loadgen.RetryPolicy{}, fmt.Errorf("runner: retry classes: %w", err)
	}
	kind, err := loadgen.ParseBackoffKind(c.Retry.Backoff.Kind)
	if err != nil {
		return loadgen.RetryPolicy{}, fmt.Errorf("runner: backoff: %w", err)
	}
	jitter, err := loadgen.ParseJitter(c.Retry.Backoff.Jitter)
	if err != nil {
		return loadgen.RetryPolicy{}, fmt.Errorf("runner: jitter: %w", err)
	}
	p := loadgen.RetryPolicy{
		MaxRetries:   c.Retry.MaxRetries,
		On:           on,
		Budget:       c.Retry.Budget,
		BudgetWindow: c.Retry.BudgetWindow,
		Backoff:      loadgen.Backoff{Kind: kind, Base: c.Retry.Backoff.Base, Max: c.Retry.Backoff.Max, Jitter: jitter},
		RetryAfter:   c.Retry.RetryAfter,
		Deadline:     c.Deadline,
	}
	if tb := c.Retry.TokenBucket; tb != nil {
		p.TokenBucket = &loadgen.TokenBucket{Capacity: tb.Capacity, RetryCost: tb.RetryCost, TimeoutCost: tb.TimeoutCost, SuccessRefund: tb.SuccessRefund}
	}
	return p, nil
}

// meanBackoffs returns the mean delay, in seconds, before each retry of the
// policy: the middle of the jitter bounds, the previous mean standing in
// for the previous delay (decorrelated jitter). Empty when there is none.
func meanBackoffs(p loadgen.RetryPolicy) []float64 {
	if p.Backoff.Kind == loadgen.BackoffNone || p.MaxRetries == 0 {
		return nil
	}
	out := make([]float64, p.MaxRetries)
	prev := time.Duration(0)
	for n := 1; n <= p.MaxRetries; n++ {
		lo, hi := p.Backoff.Bounds(n, prev)
		prev = (lo + hi) / 2
		out[n-1] = prev.Seconds()
	}
	return out
}

// clientLayer is the clients' own retry layer as the model sees it in the
// failed state, where every attempt times out.
func clientLayer(s *scenarios.Scenario, p loadgen.RetryPolicy) analysis.RetryLayer {
	l := analysis.RetryLayer{Name: "client", MaxRetries: p.MaxRetries}
	if !p.On.Has(loadgen.OutcomeTimeout) {
		// Clients that do not retry a timeout bring one attempt per request
		// to a service whose every attempt times out.
		l.MaxRetries = 0
	}
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

// PlanInputs reduces a scenario to the numbers of the model.
func PlanInputs(s *scenarios.Scenario) (analysis.PlanInputs, error) {
	policy, err := RetryPolicy(s.Client)
	if err != nil {
		return analysis.PlanInputs{}, err
	}
	in := analysis.PlanInputs{
		Scenario: analysis.ScenarioSection{
			Name:            s.Name,
			Description:     s.Description,
			File:            s.File,
			DemandPerS:      s.Load.Baseline,
			CapacityPerS:    s.Service.Capacity,
			Multiplier:      s.Load.Spike.Multiplier,
			SpikeS:          s.Load.Spike.Duration.Seconds(),
			WarmupS:         s.Load.Warmup.Seconds(),
			ObserveS:        s.Load.Observe.Seconds(),
			TimeoutS:        s.Client.Timeout.Seconds(),
			AdmissionBoundS: s.Service.AdmissionBound.Seconds(),
		},
		Layers:          []analysis.RetryLayer{clientLayer(s, policy)},
		ClientBackoffS:  meanBackoffs(policy),
		PodRatePerS:     s.Service.PodRate,
		MaxReplicas:     s.Service.MaxReplicas,
		ScalabilityPeak: s.Service.ScalabilityPeak,
		Gate: analysis.GateSpec{
			MaxRecoveryS:     s.Gate.MaxRecovery.Seconds(),
			AllowTrap:        s.Gate.AllowTrap,
			MaxAmplification: s.Gate.MaxAmplification,
		},
	}
	for _, l := range s.Layers {
		layer := analysis.RetryLayer{Name: l.Name, MaxRetries: l.MaxRetries, RetryProbability: l.RetryProbability, TimeoutS: l.Timeout.Seconds()}
		if l.Budget != nil {
			layer.HasBudget, layer.Budget = true, *l.Budget
		}
		in.Layers = append(in.Layers, layer)
	}
	if a := s.Service.Autoscaler; a != nil {
		in.Scaler = &analysis.ScalerInputs{Signal: analysis.ScalerSignal(a.Signal), Target: a.Target, DeadTimeS: a.DeadTime.Seconds()}
	}
	in.Scenario.Variables = nil
	if len(s.Variables) > 0 {
		in.Scenario.Variables = maps.Clone(s.Variables)
	}
	if err := judgeAfter(&in, s, policy); err != nil {
		return analysis.PlanInputs{}, err
	}
	return in, nil
}

// judgeAfter sets how long after the spike a run of the scenario can show
// a trap at the soonest, from its queries' windows and the embedded
// server's scrape interval; a remote server's interval is read only at run
// time, so for it the figure leaves the interval out and says so.
func judgeAfter(in *analysis.PlanInputs, s *scenarios.Scenario, policy loadgen.RetryPolicy) error {
	sigs, err := staticSignals(s.Prometheus)
	if err != nil {
		return err
	}
	settle := retrySettleS(s, policy)
	resolution := map[string]float64{waitTracers: 1}
	for _, q := range sigs {
		switch q.name {
		case "wait":
			resolution[waitService] = q.scrapeS
		case "ingress", "served":
			resolution[waitBacklog] = math.Max(resolution[waitBacklog], q.scrapeS)
		}
	}
	need, note := soonestJudgement(waitDelays(settle, sigs, s.Client.Tracers != nil), resolution, settle)
	if math.IsNaN(need) {
		return nil
	}
	if s.Prometheus != nil && !embedded(s.Prometheus) {
		note += ", plus the remote server's scrape interval, read at run time"
	}
	in.JudgeAfterS, in.JudgeAfterNote = need, note
	return nil
}

// RequestConfig is the scenario as the request-level model runs it: the
// same stages, capacity, timeout and admission bound as the fluid model
// (PlanInputs), the scenario's arrival process, pods × workers servers with
// the service block's service-time law and queue, the clients' own retry
// policy through loadgen's Retrier (SimRetry), and the other retry layers
// as hidden work per failing attempt. A service given by its capacity alone
// is one pod at that rate.
func RequestConfig(s *scenarios.Scenario, seed uint64) (analysis.RequestConfig, error) {
	in, err := PlanInputs(s)
	if err != nil {
		return analysis.RequestConfig{}, err
	}
	policy, err := RetryPolicy(s.Client)
	if err != nil {
		return analysis.RequestConfig{}, err
	}
	arrivals, err := analysis.ParseArrivalProcess(s.Client.Arrivals)
	if err != nil {
		return analysis.RequestConfig{}, fmt.Errorf("runner: %w", err)
	}
	service, err := analysis.ParseServiceTime(s.Service.ServiceTime)
	if err != nil {
		return analysis.RequestConfig{}, fmt.Errorf("runner: %w", err)
	}
	queue, err := analysis.ParseQueueDiscipline(s.Service.Queue)
	if err != nil {
		return analysis.RequestConfig{}, fmt.Errorf("runner: %w", err)
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
	return analysis.RequestConfig{
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
		Seed:                seed,
	}, nil
}
