package scenarios

import (
	"errors"
	"github.com/hashicorp/hcl/v2"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

func ptr[T any](v T) *T { return &v }

// specimenPrometheus is the prometheus block every shipped scenario shares.
func specimenPrometheus() Prometheus {
	return Prometheus{
		Address:        "embedded",
		Scrape:         []string{"http://127.0.0.1:8080/metrics"},
		ScrapeInterval: time.Second,
		Timeout:        10 * time.Second,
		Ingress:        "sum(rate(specimen_ingress_total[5s]))",
		FirstAttempts:  `sum(rate(specimen_ingress_total{kind="first"}[5s]))`,
		Served:         "sum(rate(specimen_served_total[5s]))",
		Abandoned:      `sum(rate(specimen_served_total{result="abandoned"}[5s]))`,
		Wait:           "max(specimen_queue_wait_estimate_seconds)",
	}
}

// TestShippedScenarios loads each scenario shipped in this directory and
// spot-checks the values its comments promise, defaults included.
func TestShippedScenarios(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, s *Scenario)
	}{
		// ρ = 0.25, A = 3: recovers in about 67 s.
		{"recovers.hcl", func(t *testing.T, s *Scenario) {
			eq(t, "name", s.Name, "recovers")
			eq(t, "capacity", s.Service.Capacity, 200.0)
			eq(t, "baseline", s.Load.Baseline, 50.0)
			eq(t, "max_retries", s.Client.Retry.MaxRetries, 2)
			eq(t, "on", s.Client.Retry.On, retry.NewOutcomeSet(vocab.OutcomeTimeout))
			eq(t, "spike", s.Load.Spike, Spike{Multiplier: 5, Duration: 10 * time.Second})
			eq(t, "warmup", s.Load.Warmup, 20*time.Second)
			eq(t, "observe", s.Load.Observe, 3*time.Minute)
			eq(t, "max_recovery", s.Gate.MaxRecovery, 2*time.Minute)
			eq(t, "allow_trap", s.Gate.AllowTrap, false)
			// defaults
			eq(t, "arrivals", s.Client.Arrivals, vocab.Poisson)
			eq(t, "max_in_flight", s.Client.MaxInFlight, 20000)
			eq(t, "budget", s.Client.Retry.Budget, (*float64)(nil))
			eq(t, "retry_after", s.Client.Retry.RetryAfter, true)
			eq(t, "backoff", s.Client.Retry.Backoff, retry.Backoff{Kind: vocab.BackoffNone, Max: 10 * time.Second, Jitter: vocab.JitterNone})
			eq(t, "recovery", s.Recovery, Recovery{SuccessRatio: 0.99, Hold: 10 * time.Second})
			eq(t, "on_trap", s.OnTrap, (*OnTrap)(nil))
		}},
		// ρ = 0.4, A·ρ = 1.2: trapped; drops demand once judged trapped.
		{"trapped.hcl", func(t *testing.T, s *Scenario) {
			eq(t, "baseline", s.Load.Baseline, 80.0)
			eq(t, "capacity", s.Service.Capacity, 200.0)
			eq(t, "max_retries", s.Client.Retry.MaxRetries, 2)
			eq(t, "spike", s.Load.Spike, Spike{Multiplier: 5, Duration: 10 * time.Second})
			eq(t, "allow_trap", s.Gate.AllowTrap, false)
			eq(t, "on_trap", s.OnTrap, &OnTrap{Action: vocab.TrapDrop, Observe: time.Minute})
			eq(t, "method default", s.Target.Method, "GET")
		}},
		// k·ρ = 0.75: no spike length can trigger.
		{"no-trigger.hcl", func(t *testing.T, s *Scenario) {
			eq(t, "multiplier", s.Load.Spike.Multiplier, 3.0)
			eq(t, "k·ρ", s.Load.Spike.Multiplier*s.Load.Baseline/s.Service.Capacity, 0.75)
			eq(t, "warmup default", s.Load.Warmup, 20*time.Second)
			eq(t, "observe default", s.Load.Observe, 3*time.Minute)
		}},
		// Client budget 0.2 behind a gateway retrying twice; variables.
		{"gateway-budget.hcl", func(t *testing.T, s *Scenario) {
			eq(t, "budget", s.Client.Retry.Budget, ptr(0.2))
			eq(t, "layers", s.Layers, []Layer{{Name: "gateway", MaxRetries: 2, RetryProbability: 1, Timeout: 300 * time.Millisecond, On: AnyFailure}})
			eq(t, "tracers", s.Client.Tracers, &vocab.Tracers{Rate: 2, Timeout: time.Minute})
			eq(t, "baseline from var", s.Load.Baseline, 50.0)
			eq(t, "multiplier from var", s.Load.Spike.Multiplier, 5.0)
			eq(t, "variables", s.Variables, map[string]string{"baseline": "50", "multiplier": "5"})
			eq(t, "backoff", s.Client.Retry.Backoff, retry.Backoff{Kind: vocab.BackoffExponential, Base: 50 * time.Millisecond, Max: time.Second, Jitter: vocab.JitterFull})
			eq(t, "headers", s.Target.Headers, map[string]string{"X-Test": "trigger"})
			eq(t, "on_trap", s.OnTrap, &OnTrap{Action: vocab.TrapRate, Rate: 10, Observe: 2 * time.Minute})
			eq(t, "gate", s.Gate, Gate{MaxRecovery: 6 * time.Minute, MaxAmplification: 4,
				MaxRecoveryRegression: DefaultMaxRecoveryRegression, MaxAmplificationRegression: DefaultMaxAmplificationRegression})
			eq(t, "max_duration", s.MaxDuration, 10*time.Minute)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustLoad(t, tt.file)
			if s.Warnings != nil {
				t.Errorf("warnings: %v", s.Warnings)
			}
			eq(t, "file", s.File, tt.file)
			eq(t, "url", s.Target.URL, "http://127.0.0.1:8080/work")
			eq(t, "allow_hosts", s.Target.AllowHosts, []string{"127.0.0.1", "localhost"})
			eq(t, "timeout", s.Client.Timeout, time.Second)
			if s.Prometheus == nil {
				t.Fatal("no prometheus block")
			}
			want := specimenPrometheus()
			if tt.file == "gateway-budget.hcl" {
				want.Wait, want.Pods = "max(specimen_queue_wait_estimate_seconds)", "sum(specimen_pods_ready)"
			}
			eq(t, "prometheus", *s.Prometheus, want)
			tt.check(t, s)
		})
	}
}

// mustLoad loads the scenario at path, failing t with the rendered
// diagnostics when it does not load.
func mustLoad(t *testing.T, path string) *Scenario {
	t.Helper()
	s, err := Load(path, nil)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			var b strings.Builder
			_ = e.Render(&b, 100, false)
			t.Fatalf("Load: %v\n%s", err, b.String())
		}
		t.Fatalf("Load: %v", err)
	}
	return s
}

// TestExamples: the scenarios shipped in examples/ stay valid, without
// warnings.
func TestExamples(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s := mustLoad(t, p)
			if s.Warnings != nil {
				t.Errorf("warnings: %v", s.Warnings)
			}
		})
	}
}

// TestDecodeEveryAttribute decodes testdata/good/all.hcl, which sets every
// attribute of the schema to a value other than its default.
func TestDecodeEveryAttribute(t *testing.T) {
	s, err := Load("testdata/good/all.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		File:        "testdata/good/all.hcl",
		Name:        "all",
		Description: "every attribute",
		MaxDuration: 15 * time.Minute,
		Target: Target{
			URL:        "https://localhost:8443/api?x=1",
			Method:     "POST",
			Headers:    map[string]string{"X-Test": "trigger", "Authorization": "Bearer s3cr3t"},
			Body:       `{"k": 1}`,
			AllowHosts: []string{"127.0.0.1", "localhost"},
			OKStatus:   append(seq(200, 299), 304),
			Protocol:   vocab.ProtocolH2,
			TLS:        &tlsfiles.Files{CAFile: "testdata/good/target-ca.pem", CertFile: "testdata/good/client.pem", KeyFile: "testdata/good/client-key.pem", ServerName: "api.staging"},
		},
		Client: Client{
			Timeout: 750 * time.Millisecond, Arrivals: vocab.Uniform, MaxInFlight: 5000,
			Retry: retry.Policy{
				MaxRetries: 4, Budget: ptr(0.1),
				On:           retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome429, vocab.Outcome503, vocab.Outcome4xx, vocab.OutcomeOther),
				BudgetWindow: 30 * time.Second, RetryAfter: false,
				TokenBucket: &retry.TokenBucket{Capacity: 100, RetryCost: 2, TimeoutCost: 4, SuccessRefund: 0.5},
				Backoff:     retry.Backoff{Kind: vocab.BackoffConstant, Base: 20 * time.Millisecond, Max: 2 * time.Second, Jitter: vocab.JitterDecorrelated},
				Deadline:    3 * time.Second,
			},
			Tracers: &vocab.Tracers{Rate: 0.5, Timeout: 30 * time.Second},
		},
		Layers: []Layer{
			{Name: "gateway", MaxRetries: 2, RetryProbability: 1, Timeout: 250 * time.Millisecond, On: retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome503)},
			{Name: "mesh", Budget: ptr(0.25), RetryProbability: 0.5, On: AnyFailure},
		},
		Service: Service{
			Capacity: 102, Pods: 4, PodRate: 25.5, AdmissionBound: 400 * time.Millisecond,
			MaxReplicas: 12, ScalabilityPeak: 20,
			Autoscaler: &Autoscaler{Signal: vocab.SignalPaired, Target: 0.6, DeadTime: 45 * time.Second},
			Workers:    8, ServiceTime: vocab.ServiceLognormal, ServiceCV: 1.5, Queue: vocab.QueueShared, DeadlinePropagation: true,
		},
		Load: LoadProfile{Baseline: 40, Warmup: 5 * time.Second, Observe: 90 * time.Second,
			Spike: Spike{Multiplier: 4.5, Duration: 8 * time.Second}},
		Prometheus: &Prometheus{
			Address: "https://prom.internal:9090", ScrapeInterval: 2 * time.Second, ScrapeIntervalGiven: true, Timeout: 5 * time.Second,
			Ingress: "i", FirstAttempts: "f", Served: "s", Abandoned: "a", Wait: "w", Pods: "p",
			Auth: &PrometheusAuth{UsernameEnv: "U", PasswordEnv: "P"},
			TLS:  &tlsfiles.Files{CAFile: "testdata/good/ca.pem", CertFile: "testdata/good/c.pem", KeyFile: "testdata/good/k.pem", ServerName: "prom", InsecureSkipVerify: true},
		},
		Recovery: Recovery{SuccessRatio: 0.95, Hold: 20 * time.Second},
		OnTrap:   &OnTrap{Action: vocab.TrapCommand, Command: []string{"kubectl", "rollout", "restart", "deploy/api"}, Observe: 3 * time.Minute},
		Gate: Gate{MaxRecovery: 90 * time.Second, AllowTrap: true, MaxAmplification: 6, Baseline: "out/main/result.json",
			MaxRecoveryRegression: 0.25, MaxAmplificationRegression: 0.15, MinTriggerMargin: 2},
		Campaign: &Campaign{Baselines: []float64{0.25, 0.5}, Rates: []float64{25.5, 51}, Search: vocab.SearchDuration, From: 2, To: 60,
			Precision: 0.2, Hysteresis: true, MaxDuration: 3 * time.Hour, Rest: 30 * time.Second, Trials: 50, TrapProbability: 0.05},
		ExpectedSpike: &ExpectedSpike{Multiplier: 2, Duration: 30 * time.Second},
		Notify:        &Notify{Webhook: "https://hooks.example.internal/services/T0/B0/xyz", Timeout: 3 * time.Second},
		StopWhen: []StopCondition{
			{Name: "burn-rate", Query: `slo:burn_rate:ratio_1h{env="staging-eu"} > 10`, Address: "https://prom.staging-eu.internal:9090",
				Timeout: 500 * time.Millisecond, Auth: &PrometheusAuth{BearerTokenEnv: "STOP_TOKEN"},
				TLS: &tlsfiles.Files{CAFile: "testdata/good/stop-ca.pem", ServerName: "prom-eu"}},
			{Name: "production-alerts", Query: `ALERTS{alertstate="firing",env="production"}`, Timeout: 2 * time.Second},
		},
		Variables: map[string]string{
			"rate":  "40",
			"hosts": `["127.0.0.1", "localhost"]`,
			"token": SensitiveValue,
		},
		// The webhook is a secret as the sensitive token is.
		Secrets: []string{`"https://hooks.example.internal/services/T0/B0/xyz"`, "https://hooks.example.internal/services/T0/B0/xyz", `"s3cr3t"`, "s3cr3t"},
	}
	// The source is kept as read; the rest is compared field by field.
	if src, _ := os.ReadFile(s.File); string(s.Source) != string(src) {
		t.Errorf("Source holds %d bytes, not the file's %d", len(s.Source), len(src))
	}
	want.Source = s.Source
	// The test's hash is the source's without the gate block's body: the
	// same with another gate, another without.
	if len(s.Hash) != 16 || s.Hash != testHash(s.Source, hclRangeOf(t, s.Source, "gate {"), hclRangeOf(t, s.Source, "notify {"),
		hclRangeOf(t, s.Source, "campaign {"), hclRangeOf(t, s.Source, "expected_spike {")) {
		t.Errorf("hash %q", s.Hash)
	}
	other := strings.Replace(string(s.Source), `allow_trap                   = true`, `allow_trap                   = false`, 1)
	if h, err := Parse("testdata/good/all.hcl", []byte(other), nil); err != nil || h.Hash != s.Hash {
		t.Errorf("another gate changed the hash: %v", err)
	}
	if h, err := Parse("testdata/good/all.hcl", []byte(strings.Replace(string(s.Source), `timeout = "3s"`, `timeout = "4s"`, 1)), nil); err != nil || h.Hash != s.Hash {
		t.Errorf("another notify changed the hash: %v", err)
	}
	if h, err := Parse("testdata/good/all.hcl", []byte(strings.Replace(string(s.Source), `rest         = "30s"`, `rest         = "40s"`, 1)), nil); err != nil || h.Hash != s.Hash {
		t.Errorf("another campaign changed the hash: %v", err)
	}
	if h, err := Parse("testdata/good/all.hcl", []byte(strings.Replace(string(s.Source), `"750ms"`, `"751ms"`, 1)), nil); err != nil || h.Hash == s.Hash {
		t.Errorf("another timeout kept the hash: %v", err)
	}
	want.Hash = s.Hash
	want.Touches = s.Touches       // TestTouches checks them
	want.KeptSource = s.KeptSource // TestKeptSourceHidesSensitiveDefaults checks it
	if !reflect.DeepEqual(s, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", s, want)
	}
}

// seq returns the integers from lo to hi.
func seq(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// minimal is the smallest valid scenario; tests append to it.
const minimal = `
scenario "min" {}
target {
  url         = "http://127.0.0.1:8080/"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
load {
  baseline = 10
  spike {
    multiplier = 2
    duration   = "5s"
  }
}
`

// TestDefaults checks every default documented on the resolved types.
func TestDefaults(t *testing.T) {
	src := strings.Replace(minimal+"service { capacity = 100 }\n", `client { timeout = "1s" }`, `client {
  timeout = "1s"
  retry {
    backoff { kind = "exponential" }
    token_bucket {}
  }
  tracers {}
}
layer "x" {}
prometheus {
  scrape  = ["http://127.0.0.1:8080/metrics"]
  ingress = "q"
}
on_trap { action = "drop" }`, 1)
	s, err := Parse("min.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Client
	eq(t, "method", s.Target.Method, "GET")
	eq(t, "arrivals", c.Arrivals, vocab.Poisson)
	eq(t, "max_in_flight", c.MaxInFlight, 20000)
	eq(t, "deadline", c.Retry.Deadline, time.Duration(0))
	eq(t, "max_retries", c.Retry.MaxRetries, 0)
	eq(t, "on", c.Retry.On, retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.OutcomeConnect, vocab.Outcome5xx))
	eq(t, "budget_window", c.Retry.BudgetWindow, 10*time.Second)
	eq(t, "retry_after", c.Retry.RetryAfter, true)
	eq(t, "token_bucket", c.Retry.TokenBucket, &retry.TokenBucket{Capacity: 500, RetryCost: 5, TimeoutCost: 10, SuccessRefund: 1})
	eq(t, "backoff", c.Retry.Backoff, retry.Backoff{Kind: vocab.BackoffExponential, Base: 100 * time.Millisecond, Max: 10 * time.Second, Jitter: vocab.JitterNone})
	eq(t, "tracers", c.Tracers, &vocab.Tracers{Rate: 2, Timeout: 60 * time.Second})
	eq(t, "layer", s.Layers, []Layer{{Name: "x", RetryProbability: 1, On: AnyFailure}})
	eq(t, "warmup", s.Load.Warmup, 20*time.Second)
	eq(t, "observe", s.Load.Observe, 3*time.Minute)
	eq(t, "prometheus", *s.Prometheus, Prometheus{Address: "embedded", Scrape: []string{"http://127.0.0.1:8080/metrics"},
		ScrapeInterval: time.Second, Timeout: 10 * time.Second, Ingress: "q"})
	eq(t, "recovery", s.Recovery, Recovery{SuccessRatio: 0.99, Hold: 10 * time.Second})
	eq(t, "on_trap", s.OnTrap, &OnTrap{Action: vocab.TrapDrop, Observe: 2 * time.Minute})
	eq(t, "gate", s.Gate, Gate{})
	eq(t, "max_duration", s.MaxDuration, time.Duration(0))
	eq(t, "file", s.File, "")
	eq(t, "ok_status", s.Target.OKStatus, []int(nil))
	eq(t, "stop_when", s.StopWhen, []StopCondition(nil))
	eq(t, "secrets", s.Secrets, []string(nil))

	// Without a retry or backoff block: no retries, backoff none.
	s, err = Parse("min.hcl", []byte(minimal+"service { capacity = 100 }\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "no retry block", s.Client.Retry, retry.Policy{On: retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.OutcomeConnect, vocab.Outcome5xx),
		BudgetWindow: 10 * time.Second, RetryAfter: true, Backoff: retry.Backoff{Kind: vocab.BackoffNone, Max: 10 * time.Second, Jitter: vocab.JitterNone}})
	eq(t, "no prometheus block", s.Prometheus, (*Prometheus)(nil))
	eq(t, "no layers", s.Layers, []Layer(nil))
}

// TestServiceCapacity covers the ways of giving the service's capacity.
func TestServiceCapacity(t *testing.T) {
	tests := []struct {
		name    string
		service string
		want    Service // zero when an error is expected
		err     string  // summary of the expected error
	}{
		// Capacity alone.
		{"capacity", "capacity = 200", Service{Capacity: 200}, ""},
		// Pods and pod_rate: capacity is their product.
		{"pods and rate", "pods = 4\npod_rate = 50", Service{Capacity: 200, Pods: 4, PodRate: 50}, ""},
		// All three, consistent.
		{"consistent", "capacity = 200\npods = 4\npod_rate = 50", Service{Capacity: 200, Pods: 4, PodRate: 50}, ""},
		// Capacity and pods: the pod rate follows.
		{"capacity and pods", "capacity = 150\npods = 3", Service{Capacity: 150, Pods: 3, PodRate: 50}, ""},
		// Capacity and pod_rate: the pod count follows when whole.
		{"capacity and rate", "capacity = 150\npod_rate = 50", Service{Capacity: 150, Pods: 3, PodRate: 50}, ""},
		// Capacity and pod_rate that is not a whole number of pods.
		{"fractional pods", "capacity = 160\npod_rate = 50", Service{}, "Inconsistent capacity"},
		// All three, inconsistent.
		{"inconsistent", "capacity = 150\npods = 4\npod_rate = 50", Service{}, "Inconsistent capacity"},
		// Nothing.
		{"neither", "max_replicas = 3", Service{}, "Missing service capacity"},
		// Pod rate without pods.
		{"rate only", "pod_rate = 50", Service{}, "Incomplete service capacity"},
		// Zero capacity.
		{"zero", "capacity = 0", Service{}, "Value out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.hcl", []byte(minimal+"service {\n"+tt.service+"\n}\n"), nil)
			if tt.err != "" {
				assertSummary(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			// The request model's attributes take their defaults.
			want.Workers, want.ServiceTime, want.ServiceCV, want.Queue = DefaultWorkers, DefaultServiceTime, DefaultServiceCV, DefaultQueue
			eq(t, "service", s.Service, want)
		})
	}
}

// TestLoadErrors: a file that cannot be read is a wrapped os error, not an
// *Error; an invalid one is an *Error whose Error() names file:line:col.
func TestLoadErrors(t *testing.T) {
	_, err := Load("testdata/does-not-exist.hcl", nil)
	var e *Error
	if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &e) {
		t.Errorf("missing file: err = %v, want a wrapped fs.ErrNotExist", err)
	}
	_, err = Load("testdata/bad/on-trap-rate.hcl", nil)
	if !errors.As(err, &e) {
		t.Fatalf("bad file: err = %v, want *Error", err)
	}
	want := "testdata/bad/on-trap-rate.hcl: 1 problem; first: testdata/bad/on-trap-rate.hcl:25:1: Missing rate"
	eq(t, "Error()", e.Error(), want)
}

// TestWarningsOnly: a valid scenario with warnings returns them in
// Scenario.Warnings, rendered like errors.
func TestWarningsOnly(t *testing.T) {
	src := minimal + `
service { capacity = 100 }
prometheus {
  address = "http://127.0.0.1:9090"
  scrape  = ["http://127.0.0.1:8080/metrics"]
  ingress = "q"
}`
	s, err := Parse("w.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Warnings == nil || len(s.Warnings.Diagnostics) != 1 {
		t.Fatalf("warnings = %v, want one", s.Warnings)
	}
	eq(t, "Error()", s.Warnings.Error(), "w.hcl: 1 warning; first: w.hcl:19:13: Scrape targets ignored")
	var b strings.Builder
	if err := s.Warnings.Render(&b, 0, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Warning: Scrape targets ignored") || !strings.Contains(b.String(), `scrape  = ["http://127.0.0.1:8080/metrics"]`) {
		t.Errorf("rendered warning:\n%s", b.String())
	}
}

// TestServiceRequestModel: the request model's attributes decode, and a
// coefficient of variation given for a law that has none is a warning.
func TestServiceRequestModel(t *testing.T) {
	for _, tc := range []struct {
		name, service string
		warning       string // summary of the expected warning; empty: none
	}{
		// Lognormal with its cv: no warning.
		{"lognormal", `service_time = "lognormal"` + "\nservice_cv = 2", ""},
		// Exponential with a cv: the cv is unused.
		{"unused cv", `service_time = "exponential"` + "\nservice_cv = 2", "Unused service_cv"},
		// The defaults alone.
		{"defaults", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("s.hcl", []byte(minimal+"service {\ncapacity = 100\n"+tc.service+"\n}\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if s.Warnings != nil {
				got = s.Warnings.Diagnostics[0].Summary
			}
			eq(t, "warning", got, tc.warning)
		})
	}
}

// assertSummary fails unless err is an *Error with an error diagnostic
// whose summary is summary.
func assertSummary(t *testing.T, err error, summary string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error with %q", err, summary)
	}
	var got []string
	for _, d := range e.Diagnostics {
		if d.Summary == summary {
			return
		}
		got = append(got, d.Summary)
	}
	t.Errorf("no %q among %q", summary, got)
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// TestHugeNumbers: numbers beyond float64 are rejected before anything
// prints them in decimal, which would take minutes for 1e100000000 (found
// while fuzzing). A regression shows up as a test timeout.
func TestHugeNumbers(t *testing.T) {
	tests := []struct {
		name string
		src  string
		vars map[string]string
	}{
		// An integer attribute.
		{"integer", strings.Replace(minimal, `client { timeout = "1s" }`, "client {\n timeout = \"1s\"\n max_in_flight = 1e100000000\n}", 1), nil},
		// A duration: conversion to string would print it.
		{"duration", strings.Replace(minimal, `timeout = "1s"`, "timeout = 1e100000000", 1), nil},
		// Inside a template.
		{"template", strings.Replace(minimal, `timeout = "1s"`, `timeout = "${1e100000000}s"`, 1), nil},
		// A tiny one.
		{"tiny", strings.Replace(minimal, "baseline = 10", "baseline = 1e-100000000", 1), nil},
		// A variable default.
		{"default", "variable \"x\" { default = 1e100000000 }\n" + minimal, nil},
		// An override.
		{"override", "variable \"x\" { default = 1 }\n" + minimal, map[string]string{"x": "1e100000000"}},
		// An override parsed as HCL.
		{"override list", "variable \"x\" { default = [1] }\n" + minimal, map[string]string{"x": "[1e100000000]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("h.hcl", []byte(tt.src+"service { capacity = 1 }\n"), tt.vars)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			for _, d := range e.Diagnostics {
				if strings.Contains(d.Detail, "1e308") {
					return
				}
			}
			t.Errorf("no diagnostic about the range of numbers: %v", e.Diagnostics)
		})
	}
}

// A request mix decodes with each request's headers over the target's
// common ones, its weight, method, URL and body; Mix lists the blocks, and
// a single-request target's Mix is its one request.
func TestDecodeRequestMix(t *testing.T) {
	s, err := Load("testdata/good/mix.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "requests", s.Target.Requests, []Request{
		{Name: "quote", Weight: 8, Method: "POST", URL: "http://127.0.0.1:8080/v1/quote",
			Headers: map[string]string{"Authorization": "Bearer s3cr3t", "X-Test": "quote", "Content-Type": "application/json"}, Body: `{"n":1}`},
		{Name: "search", Weight: 2, Method: "GET", URL: "http://127.0.0.1:8080/v1/search?q=shoes",
			Headers: map[string]string{"Authorization": "Bearer s3cr3t", "X-Test": "mix"}},
	})
	eq(t, "mix", len(s.Target.Mix()), 2)
	single := Target{URL: "http://h/x", Method: "GET", Headers: map[string]string{"A": "b"}, Body: "y"}
	eq(t, "single", single.Mix(), []Request{{Weight: 1, Method: "GET", URL: "http://h/x", Headers: map[string]string{"A": "b"}, Body: "y"}})
	if err := CheckSends(s); err != nil {
		t.Errorf("CheckSends: %v", err)
	}
	s.Target.Requests[1].URL = "http://prod.example.com/v1/search"
	if err := CheckSends(s); err == nil {
		t.Error("CheckSends allowed a request to a host outside allow_hosts")
	}
}

// The checkout example decodes its data file (header row, quoted fields)
// and writes each per-request value as a marker of its slot: jsonencode
// turns request.seq and random::int into JSON numbers and a data column
// into its JSON form; a URL keeps the plain one.
func TestDecodeDataAndPerRequestFunctions(t *testing.T) {
	s, err := Load("testdata/good/checkout.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "data", s.Data, []vocab.DataSet{{Name: "users", File: "users.csv", Columns: []string{"email", "name", "tier"},
		Rows: [][]string{{"ann@example.com", "Ann Lee", "gold"}, {"bob@example.com", `Bob "B" Ray`, "silver"}, {"cy@example.com", "Cy", "bronze"}}}})
	fixed := len(vocab.FixedSlots())
	email, name, qty, emailJSON := fixed, fixed+1, fixed+3, fixed+4
	eq(t, "slots", s.Target.Slots[email:], []vocab.Slot{
		{Value: vocab.PerDataColumn, Name: "data.users.email", Column: 0},
		{Value: vocab.PerDataColumn, Name: "data.users.name", Column: 1},
		{Value: vocab.PerDataColumn, Name: "data.users.tier", Column: 2},
		{Value: vocab.PerRandomInt, Name: "random::int(1, 6)", Lo: 1, Hi: 6},
		{Value: vocab.PerDataColumn, Name: "data.users.email", Column: 0, JSON: true},
	})
	quote, search := s.Target.Requests[0], s.Target.Requests[1]
	eq(t, "quote body", quote.Body, `{"n":`+vocab.PerRequestSeq.Marker()+`,"qty":`+vocab.Marker(qty)+`,"user":"`+vocab.Marker(emailJSON)+`"}`)
	eq(t, "search url", search.URL, "http://127.0.0.1:8080/v1/search?q="+vocab.Marker(name))
	eq(t, "readable", vocab.Readable(quote.Body, s.Target.Slots), `{"n":${request.seq},"qty":${random::int(1, 6)},"user":"${data.users.email}"}`)
	_ = email

	// The example, as written there.
	s, err = Load("testdata/good/checkout-issue.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "issue body", vocab.Readable(s.Target.Requests[0].Body, s.Target.Slots), `{"n":${request.seq},"user":"${data.users.email}"}`)
	eq(t, "issue search", vocab.Readable(s.Target.Requests[1].URL, s.Target.Slots), "https://checkout.staging.example.internal/v1/search?q=${data.users.name}")
}

// Requests that each give a cost give the mix's capacity C = 1/Σ wᵢ·sᵢ
// (weights as shares), pod_rate C/pods; a capacity beside them is refused.
func TestRequestCostsGiveTheMixCapacity(t *testing.T) {
	src := func(service string) string {
		return `
scenario "costs" {}
target {
  allow_hosts = ["127.0.0.1"]
  request "heavy" {
    url  = "http://127.0.0.1:8080/heavy"
    cost = "15ms"
  }
  request "light" {
    weight = 3
    url    = "http://127.0.0.1:8080/light"
    cost   = "5ms"
  }
}
client { timeout = "1s" }
service { ` + service + ` }
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
`
	}
	s, err := Parse("costs.hcl", []byte(src("pods = 4")), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Σ wᵢ·sᵢ = 0.25 × 15 ms + 0.75 × 5 ms = 7.5 ms: C = 133.3/s.
	if c := s.Service.Capacity; math.Abs(c-1/0.0075) > 1e-9 || math.Abs(s.Service.PodRate-c/4) > 1e-9 {
		t.Errorf("capacity %g, pod_rate %g; want 133.33 and a quarter of it", c, s.Service.PodRate)
	}
	_, err = Parse("costs.hcl", []byte(src("capacity = 200")), nil)
	if err == nil || !strings.Contains(err.Error(), "Capacity given twice") {
		t.Errorf("capacity beside costs: %v", err)
	}
}

// hclRangeOf is the range of the body of the block whose header is at
// marker in src: from its "{" to the end of its closing "}".
func hclRangeOf(t *testing.T, src []byte, marker string) hcl.Range {
	t.Helper()
	i := strings.Index(string(src), marker)
	if i < 0 {
		t.Fatalf("no %q", marker)
	}
	start := i + len(marker) - 1
	end := start + strings.Index(string(src[start:]), "\n}") + 2
	return hcl.Range{Start: hcl.Pos{Byte: start}, End: hcl.Pos{Byte: end}}
}
