package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// share is a gate regression threshold, which the reference writes as
// "20%".
type share float64

// withDefaults is a scenario with every optional block, each giving only
// what it must, so that the decoder fills in every default.
const withDefaults = `
scenario "defaults" {}
data "users" { file = "users.csv" }
target {
  url         = "http://127.0.0.1:8080/"
  allow_hosts = ["127.0.0.1"]
  tls {}
}
client {
  timeout = "1s"
  retry {
    backoff {}
    token_bucket {}
  }
  tracers {}
}
layer "x" {}
service { capacity = 100 }
load {
  baseline = 10
  spike {
    multiplier = 2
    duration   = "5s"
  }
}
prometheus {
  scrape  = ["http://127.0.0.1:8080/metrics"]
  ingress = "q"
  tls {}
}
recovery {}
on_trap { action = "drop" }
stop_when "brake" {
  query = "up > 1"
  tls {}
}
gate {}
notify { webhook = "https://hooks.example.internal/x" }
campaign {
  baselines = [0.2]
  from      = 1.5
  to        = 10
}
`

// TestReferenceDocDefaults: every default docs/scenarios.md gives as a
// value (a code span first in its default cell: "10s", 20000, ["timeout",
// …]) is the value the decoder fills in when the attribute is left out.
// A documented value default this test does not read from the decoded
// scenario fails it too, so that a new one is checked.
func TestReferenceDocDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("email\na@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(src string) *Scenario {
		t.Helper()
		s, err := Parse(filepath.Join(dir, "s.hcl"), []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := parse(withDefaults)
	// The backoff's base has its default with a kind that waits.
	exp := parse(strings.Replace(withDefaults, "backoff {}", `backoff { kind = "constant" }`, 1))
	// A request mix, a fault in the spike's place, a notify block.
	mix := parse(strings.Replace(withDefaults, `url         = "http://127.0.0.1:8080/"`, `request "r" { url = "http://127.0.0.1:8080/" }`, 1))
	fault := parse(faultScenario)
	// A gRPC target, alone and in a mix.
	if err := os.WriteFile(filepath.Join(dir, "g.protoset"), grpcdesctest.Set(), 0o644); err != nil {
		t.Fatal(err)
	}
	grpcOne := parse(strings.Replace(withDefaults, `url         = "http://127.0.0.1:8080/"`,
		`url = "grpc://127.0.0.1:8080"
  grpc {
    method         = "helloworld.Greeter/SayHello"
    descriptor_set = "g.protoset"
  }`, 1))
	grpcMix := parse(strings.Replace(withDefaults, `url         = "http://127.0.0.1:8080/"`,
		`grpc { descriptor_set = "g.protoset" }
  request "r" {
    url = "grpc://127.0.0.1:8080"
    grpc { method = "helloworld.Greeter/SayHello" }
  }`, 1))
	c, r := s.Client, s.Client.Retry
	got := map[string]any{
		"scenario.description":                     s.Description,
		"prometheus.tls.insecure_skip_verify":      s.Prometheus.TLS.InsecureSkipVerify,
		"stop_when.tls.insecure_skip_verify":       s.StopWhen[0].TLS.InsecureSkipVerify,
		"target.method":                            s.Target.Method,
		"target.headers":                           s.Target.Headers,
		"target.body":                              s.Target.Body,
		"target.protocol":                          s.Target.Protocol,
		"target.request.weight":                    mix.Target.Requests[0].Weight,
		"target.request.method":                    mix.Target.Requests[0].Method,
		"target.request.headers":                   mix.Target.Requests[0].Headers,
		"target.request.body":                      mix.Target.Requests[0].Body,
		"target.tls.insecure_skip_verify":          s.Target.TLS.InsecureSkipVerify,
		"target.grpc.reflection":                   grpcOne.Target.GRPC.Reflection,
		"target.grpc.message":                      grpcOne.Target.GRPC.Message,
		"target.request.grpc.message":              grpcMix.Target.Requests[0].GRPC.Message,
		"data.order":                               map[bool]string{false: DataSequential, true: DataRandom}[s.Data[0].Random],
		"client.arrivals":                          c.Arrivals,
		"client.max_in_flight":                     c.MaxInFlight,
		"client.retry.max_retries":                 r.MaxRetries,
		"client.retry.on":                          r.On,
		"client.retry.budget_window":               r.BudgetWindow,
		"client.retry.retry_after":                 r.RetryAfter,
		"client.retry.backoff.kind":                r.Backoff.Kind,
		"client.retry.backoff.base":                exp.Client.Retry.Backoff.Base,
		"client.retry.backoff.max":                 r.Backoff.Max,
		"client.retry.backoff.jitter":              r.Backoff.Jitter,
		"client.retry.token_bucket.capacity":       r.TokenBucket.Capacity,
		"client.retry.token_bucket.retry_cost":     r.TokenBucket.RetryCost,
		"client.retry.token_bucket.timeout_cost":   r.TokenBucket.TimeoutCost,
		"client.retry.token_bucket.success_refund": r.TokenBucket.SuccessRefund,
		"client.tracers.rate":                      c.Tracers.Rate,
		"client.tracers.timeout":                   c.Tracers.Timeout,
		"layer.max_retries":                        s.Layers[0].MaxRetries,
		"layer.retry_probability":                  s.Layers[0].RetryProbability,
		"service.latency_law":                      s.Service.LatencyLaw,
		"service.latency_floor":                    s.Service.LatencyFloor,
		"service.workers":                          s.Service.Workers,
		"service.service_time":                     s.Service.ServiceTime,
		"service.service_cv":                       s.Service.ServiceCV,
		"service.queue":                            s.Service.Queue,
		"service.deadline_propagation":             s.Service.DeadlinePropagation,
		"load.warmup":                              s.Load.Warmup,
		"load.observe":                             s.Load.Observe,
		"prometheus.address":                       s.Prometheus.Address,
		"prometheus.scrape_interval":               s.Prometheus.ScrapeInterval,
		"prometheus.timeout":                       s.Prometheus.Timeout,
		"recovery.success_ratio":                   s.Recovery.SuccessRatio,
		"recovery.hold":                            s.Recovery.Hold,
		"fault.timeout":                            fault.Fault.Timeout,
		"on_trap.observe":                          s.OnTrap.Observe,
		"stop_when.address":                        s.StopWhen[0].Address,
		"stop_when.timeout":                        s.StopWhen[0].Timeout,
		"gate.allow_trap":                          s.Gate.AllowTrap,
		"gate.max_recovery_regression":             share(s.Gate.MaxRecoveryRegression),
		"gate.max_amplification_regression":        share(s.Gate.MaxAmplificationRegression),
		"notify.timeout":                           s.Notify.Timeout,
		"campaign.search":                          s.Campaign.Search,
		"campaign.precision":                       s.Campaign.Precision,
		"campaign.hysteresis":                      s.Campaign.Hysteresis,
		"campaign.max_duration":                    s.Campaign.MaxDuration,
		"campaign.rest":                            s.Campaign.Rest,
		"campaign.trials":                          s.Campaign.Trials,
		"campaign.trap_probability":                s.Campaign.TrapProbability,
	}
	// Defaults the resolved scenario does not keep: a variable's
	// description and sensitivity are read and dropped, the scrape list
	// is given above (an embedded Prometheus needs one).
	notKept := map[string]bool{"variable.description": true, "variable.sensitive": true, "prometheus.scrape": true}

	documented, _, _, err := parseReference(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	for path, d := range documented {
		lit := spanRE.FindStringSubmatch(d.def)
		if d.block || lit == nil || notKept[path] {
			continue
		}
		g, ok := got[path]
		if !ok {
			t.Errorf("%s:%d: %s's default %s is not checked against the decoder: add it to TestReferenceDocDefaults", referenceDoc, d.line, path, lit[0])
			continue
		}
		if err := sameDefault(lit[1], g); err != nil {
			t.Errorf("%s:%d: %s's default is documented as %s, but the decoder fills in %v: %v", referenceDoc, d.line, path, lit[0], g, err)
		}
	}
	for path := range got {
		if d, ok := documented[path]; !ok || spanRE.FindString(d.def) == "" {
			t.Errorf("%s: the test reads %s's default, which %s does not give as a value", path, path, referenceDoc)
		}
	}
}

// faultScenario is withDefaults with a fault in the spike's place, and
// no campaign (whose default search varies the spike).
var faultScenario = regexp.MustCompile(`(?s)  spike \{.*?\n  \}\n|campaign \{.*?\n\}\n`).ReplaceAllString(withDefaults, "") + `
fault "f" {
  start    = ["true"]
  stop     = ["true"]
  duration = "5s"
  capacity = 0.5
}
`

// sameDefault reports how the HCL literal lit, a documented default,
// differs from got, the decoder's value; nil when they are the same.
func sameDefault(lit string, got any) error {
	expr, diags := hclsyntax.ParseExpression([]byte(lit), "doc", hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("not an HCL value: %s", diags.Error())
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return fmt.Errorf("not an HCL value: %s", diags.Error())
	}
	str := func() (string, error) {
		if v.Type() != cty.String {
			return "", fmt.Errorf("documented as %s, not a string", v.Type().FriendlyName())
		}
		return v.AsString(), nil
	}
	num := func() (float64, error) {
		if v.Type() != cty.Number {
			return 0, fmt.Errorf("documented as %s, not a number", v.Type().FriendlyName())
		}
		f, _ := v.AsBigFloat().Float64()
		return f, nil
	}
	differ := fmt.Errorf("values differ")
	switch g := got.(type) {
	case time.Duration:
		if v.Type() == cty.Number {
			if f, _ := num(); f == 0 && g == 0 {
				return nil
			}
			return differ
		}
		s, err := str()
		if err != nil {
			return err
		}
		d, err := time.ParseDuration(s)
		if err != nil || d != g {
			return differ
		}
	case share:
		s, err := str()
		if err != nil {
			return err
		}
		f, err := vocab.ParseShare(s)
		if err != nil || f != float64(g) {
			return differ
		}
	case float64, int:
		f, err := num()
		if err != nil {
			return err
		}
		want, ok := g.(float64)
		if i, isInt := g.(int); isInt {
			want, ok = float64(i), true
		}
		if !ok || f != want {
			return differ
		}
	case bool:
		if v.Type() != cty.Bool || v.True() != g {
			return differ
		}
	case string:
		s, err := str()
		if err != nil || s != g {
			return differ
		}
	case retry.OutcomeSet:
		if !v.Type().IsTupleType() && !v.Type().IsListType() {
			return fmt.Errorf("documented as %s, not a list", v.Type().FriendlyName())
		}
		var set retry.OutcomeSet
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			o, err := vocab.ParseOutcome(e.AsString())
			if err != nil {
				return err
			}
			set |= retry.NewOutcomeSet(o)
		}
		if set != g {
			return differ
		}
	case map[string]string:
		if !v.Type().IsObjectType() || v.LengthInt() != len(g) {
			return differ
		}
	case fmt.Stringer:
		s, err := str()
		if err != nil || s != g.String() {
			return differ
		}
	default:
		return fmt.Errorf("no comparison for %T", got)
	}
	return nil
}
