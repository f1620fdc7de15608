package convert

import (
	"net/http"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// Test is one trigger test converted from its scenario, once, into what
// each consumer takes: `plan` reads Plan, `simulate` Plan and
// RequestConfig, and `run` all of it.
type Test struct {
	// Scenario is the resolved scenario the test was converted from, for
	// the command line (its prompt and messages) and the agents; the
	// runner reads Plan, Driver, Signals and Run instead.
	Scenario *scenarios.Scenario
	// Run is what a real run reads of the scenario beyond Plan and Driver.
	Run Run
	// Plan is the scenario reduced to the model's numbers.
	Plan analysis.PlanInputs
	// Retry is the clients' retry policy as the driver applies it, the
	// scenario's own (scenarios.Client.Retry); the request-level model
	// applies the same policy through SimRetry.
	Retry retry.Policy
	// Driver is the driver's configuration for the whole run: the target
	// request, the clients' timeout, retry policy, arrival process,
	// max_in_flight and tracers, with one baseline stage that lasts
	// MaxDuration (the runner starts the spike and the baseline after it
	// on the driver's clock). Seed, Transport and Registerer are left to
	// the runner.
	Driver loadgen.Config
	// Signals are the scenario's queries with the look-back their text
	// gives and, for the embedded server, its scrape interval; a remote
	// server's interval is read at run time.
	Signals []Signal
	// RetrySettleS is how long after the spike the clients' retry streams
	// take to reach their new rates, seconds.
	RetrySettleS float64

	request request.Config
}

// New converts a resolved scenario. The scenario has been validated and
// holds its enumerations as vocab's and retry's typed values, so an error
// names a query whose text does not parse.
func New(s *scenarios.Scenario) (*Test, error) {
	policy := s.Client.Retry
	sigs, err := staticSignals(s.Prometheus)
	if err != nil {
		return nil, err
	}
	t := &Test{Scenario: s, Run: RunOf(s), Retry: policy, Signals: sigs, RetrySettleS: retrySettleS(s, policy)}
	t.Plan = planInputs(s, policy, sigs, t.RetrySettleS)
	t.request = requestConfig(s, t.Plan, policy)
	t.Driver = driverConfig(s, t.Run.MaxDuration, policy)
	return t, nil
}

// RequestConfig is the request-level model's configuration with the given
// seed: every call gets its own copy.
func (t *Test) RequestConfig(seed uint64) request.Config {
	c := t.request
	c.Stages = append([]analysis.DemandStage(nil), c.Stages...)
	c.Seed = seed
	return c
}

// driverConfig is the driver's configuration of the scenario, without
// seed, transport or registry.
func driverConfig(s *scenarios.Scenario, maxDuration time.Duration, policy retry.Policy) loadgen.Config {
	cfg := loadgen.Config{
		Request:     grpcRequest(loadgen.Request{Method: s.Target.Method, URL: s.Target.URL, Header: headers(s.Target.Headers), Body: []byte(s.Target.Body)}, s.Target.GRPC),
		Stages:      []loadgen.Stage{loadgen.Constant(maxDuration, s.Load.Baseline)},
		Arrivals:    s.Client.Arrivals,
		Timeout:     s.Client.Timeout,
		Retry:       policy,
		MaxInFlight: s.Client.MaxInFlight,
		OKStatus:    s.Target.OKStatus,
		Slots:       s.Target.Slots,
		Data:        s.Data,
		TLS:         s.Target.TLS,
		HTTP2:       s.Target.Protocol == vocab.ProtocolH2,
	}
	for _, r := range s.Target.Requests {
		cfg.Mix = append(cfg.Mix, grpcRequest(loadgen.Request{Name: r.Name, Weight: r.Weight, Method: r.Method, URL: r.URL,
			Header: headers(r.Headers), Body: []byte(r.Body)}, r.GRPC))
	}
	if len(cfg.Mix) > 0 {
		cfg.Request = cfg.Mix[0]
	}
	if t := s.Client.Tracers; t != nil {
		tracers := *t // the driver's own copy, not the scenario's
		cfg.Tracers = &tracers
	}
	return cfg
}

func headers(h map[string]string) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		out.Set(k, v)
	}
	return out
}
