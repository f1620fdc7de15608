package convert

import (
	"context"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

func ptr[T any](v T) *T { return &v }

// The adapter passes loadgen's decisions through unchanged: the cap, the
// outcome classes (a refusal is a 503), the budget, the token bucket, the
// overall deadline and the backoff's jitter bounds.
func TestSimRetryPassesDecisionsThrough(t *testing.T) {
	timeout := request.RetryFailure{Kind: request.FailureTimeout}
	refused := request.RetryFailure{Kind: request.FailureRefused}
	at := func(f request.RetryFailure, attempt int) request.RetryFailure { f.Attempt = attempt; return f }
	exp := retry.Backoff{Kind: vocab.BackoffExponential, Base: 100 * time.Millisecond, Max: time.Second, Jitter: vocab.JitterFull}
	for _, tc := range []struct {
		name   string
		policy retry.Policy
		// drive calls the decider and returns what it wants checked.
		drive func(d request.RetryDecider) (granted int, delays []float64)
		want  int // retries granted
		lo    []float64
		hi    []float64
	}{
		// A cap of 2: attempts 1 and 2 are retried, attempt 3 is not.
		{"cap", retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)},
			func(d request.RetryDecider) (int, []float64) {
				n := 0
				for a := 1; a <= 3; a++ {
					if ok, _ := d.Failed(float64(a), at(timeout, a)); ok {
						n++
					}
				}
				return n, nil
			}, 2, nil, nil},
		// Only timeouts retried: a refusal (503) is not.
		{"class", retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)},
			func(d request.RetryDecider) (int, []float64) {
				ok, _ := d.Failed(1, at(refused, 1))
				return map[bool]int{true: 1}[ok], nil
			}, 0, nil, nil},
		// 503 in the classes: the refusal is retried.
		{"refusal retried", retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.Outcome503)},
			func(d request.RetryDecider) (int, []float64) {
				ok, _ := d.Failed(1, at(refused, 1))
				return map[bool]int{true: 1}[ok], nil
			}, 1, nil, nil},
		// A budget of 0.2 over 100 first attempts in the window grants 20
		// of 100 retries.
		{"budget", retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Budget: ptr(0.2)},
			func(d request.RetryDecider) (int, []float64) {
				for i := range 100 {
					d.FirstAttempt(float64(i) * 0.01)
				}
				n := 0
				for i := range 100 {
					if ok, _ := d.Failed(1+float64(i)*0.001, at(timeout, 1)); ok {
						n++
					}
				}
				return n, nil
			}, 20, nil, nil},
		// A token bucket of 30 tokens and 10 per timeout retry: three retries.
		{"token bucket", retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout),
			TokenBucket: &retry.TokenBucket{Capacity: 30, RetryCost: 5, TimeoutCost: 10, SuccessRefund: 1}},
			func(d request.RetryDecider) (int, []float64) {
				n := 0
				for i := range 10 {
					if ok, _ := d.Failed(float64(i), at(timeout, 1)); ok {
						n++
					}
				}
				return n, nil
			}, 3, nil, nil},
		// An overall deadline of 2 s: a failure 1.5 s after the request
		// started still retries, one at 2.5 s does not.
		{"deadline", retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Deadline: 2 * time.Second},
			func(d request.RetryDecider) (int, []float64) {
				n := 0
				for _, now := range []float64{1.5, 2.5} {
					if ok, _ := d.Failed(now, at(timeout, 1)); ok {
						n++
					}
				}
				return n, nil
			}, 1, nil, nil},
		// Exponential backoff with full jitter: retry n waits within
		// [0, min(0.1·2^(n−1), 1)] seconds.
		{"backoff bounds", retry.Policy{MaxRetries: 6, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Backoff: exp},
			func(d request.RetryDecider) (int, []float64) {
				n, delays := 0, []float64{}
				for a := 1; a <= 6; a++ {
					ok, delay := d.Failed(float64(a), at(timeout, a))
					if ok {
						n++
					}
					delays = append(delays, delay)
				}
				return n, delays
			}, 6, []float64{0, 0, 0, 0, 0, 0}, []float64{0.1, 0.2, 0.4, 0.8, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := SimRetry(tc.policy)
			if model.MaxRetries != tc.policy.MaxRetries {
				t.Errorf("MaxRetries %d, want %d", model.MaxRetries, tc.policy.MaxRetries)
			}
			for seed := uint64(1); seed <= 20; seed++ {
				got, delays := tc.drive(model.New(seed))
				if got != tc.want {
					t.Fatalf("seed %d: %d retries granted, want %d", seed, got, tc.want)
				}
				for i, d := range delays {
					if d < tc.lo[i]-1e-9 || d > tc.hi[i]+1e-9 {
						t.Errorf("seed %d: retry %d after %.3f s, want within [%v, %v]", seed, i+1, d, tc.lo[i], tc.hi[i])
					}
				}
			}
		})
	}
	if got := SimRetry(retry.Policy{MaxRetries: 6, Backoff: exp}).MaxDelayS; got != 1 {
		t.Errorf("MaxDelayS = %v, want the backoff's cap of 1 s", got)
	}
}

// The same policy decides the same way for a seed, differently for another.
func TestSimRetryJitterSeeded(t *testing.T) {
	m := SimRetry(retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.OutcomeTimeout),
		Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: time.Second, Jitter: vocab.JitterFull}})
	f := request.RetryFailure{Attempt: 1, Kind: request.FailureTimeout}
	_, a := m.New(7).Failed(1, f)
	_, b := m.New(7).Failed(1, f)
	_, c := m.New(8).Failed(1, f)
	if a != b || a == c {
		t.Errorf("delays %v, %v (same seed), %v (another)", a, b, c)
	}
}

// A scenario becomes the request model's configuration: stages, servers,
// laws, the client's policy through loadgen and the gateway as hidden work.
func TestRequestConfigFromScenario(t *testing.T) {
	test := newTest(t, "request.hcl")
	s := test.Scenario
	cfg := test.RequestConfig(42)
	want := analysis.SpikeSchedule(150, 4, 10, 20, 300)
	if len(cfg.Stages) != 3 || cfg.Stages[0] != want[0] || cfg.Stages[1] != want[1] || cfg.Stages[2] != want[2] {
		t.Errorf("stages %+v, want %+v", cfg.Stages, want)
	}
	if cfg.Arrivals != vocab.Uniform || cfg.Pods != 4 || cfg.Workers != 2 || cfg.PodRatePerS != 50 ||
		cfg.ServiceTime != vocab.ServiceLognormal || cfg.ServiceCV != 2 || cfg.Queue != vocab.QueueShared ||
		!cfg.DeadlinePropagation || cfg.AdmissionBoundS != 3 || cfg.TimeoutS != 1 || cfg.InnerAmplification != 2 ||
		cfg.Seed != 42 || cfg.Retry.MaxRetries != 3 || cfg.Retry.New == nil {
		t.Errorf("config %+v", cfg)
	}
	// Capacity alone: one pod at that rate, the defaults elsewhere.
	s.Service = scenarios.Service{Capacity: 200, ServiceTime: vocab.ServiceDeterministic, Queue: vocab.QueuePerPod, ServiceCV: 1}
	test, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	cfg = test.RequestConfig(1)
	if cfg.Pods != 1 || cfg.PodRatePerS != 200 || cfg.Workers != 1 || cfg.ServiceTime != vocab.ServiceDeterministic {
		t.Errorf("capacity alone: %+v", cfg)
	}
}

// Through loadgen's budget, a failed service sees A_fail = 1 + β, a little
// less for the budget window's bucketing (docs/model.md, "Retry debt and
// amplification"), whatever the cap above it; at ρ = 0.75 that traps it for β = 0.5 only.
func TestRequestModelWithLoadgenBudget(t *testing.T) {
	for _, beta := range []float64{0.2, 0.5} {
		res, err := request.Simulate(context.Background(), request.Config{
			Stages:      analysis.SpikeSchedule(300, 5, 10, 30, 600),
			Pods:        4,
			PodRatePerS: 100,
			TimeoutS:    1,
			Retry:       SimRetry(retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Budget: ptr(beta)}),
			Seed:        1,
		})
		if err != nil {
			t.Fatal(err)
		}
		trapped := 0.75*(1+beta) >= 1
		if a := res.AmplificationFailed; a > 1+beta+1e-9 || a < 1+beta*0.97 || (res.Verdict == analysis.VerdictTrapped) != trapped {
			t.Errorf("β = %v: A_fail %.4f, %s; want within [1 + 0.97β, 1 + β], trapped %v", beta, a, res.Verdict, trapped)
		}
	}
}

// The request-level model through the loadgen adapter on a trapped service
// at about 1,000 attempts per second for 20,000 s (every attempt fails and
// asks the Retrier): the cost of the real policy against the analysis
// package's own cap (BenchmarkRequestSim20000sTrapped).
func BenchmarkRequestSimLoadgenRetry(b *testing.B) {
	cfg := request.Config{
		Stages:      analysis.SpikeSchedule(1000.0/3, 3, 20, 10, 20000-30),
		Pods:        8,
		PodRatePerS: 100,
		ServiceTime: vocab.ServiceExponential,
		TimeoutS:    1,
		Retry:       SimRetry(retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)}),
		Seed:        1,
	}
	b.ReportAllocs()
	var attempts int64
	for b.Loop() {
		res, err := request.Simulate(context.Background(), cfg)
		if err != nil || res.Verdict != analysis.VerdictTrapped {
			b.Fatalf("%v %s", err, res.Verdict)
		}
		attempts += res.Counts.Attempts
	}
	b.ReportMetric(float64(attempts)/b.Elapsed().Seconds(), "attempts/s")
}
