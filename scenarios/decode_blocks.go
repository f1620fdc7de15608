package scenarios

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Decoding of each block into its resolved type, with the defaults of
// defaults.go. Only types, durations and presence are checked here; the
// semantic checks are in validate*.go.

func (d *decoder) decodeTarget(blk *hcl.Block) Target {
	b := d.open("target", "target", blk.Body, blk.DefRange, targetSchema)
	t := Target{
		URL:        b.str("url", ""),
		Method:     b.str("method", DefaultMethod),
		Headers:    b.strMap("headers"),
		Body:       b.str("body", ""),
		AllowHosts: b.strList("allow_hosts", nil),
		OKStatus:   b.statusList("ok_status"),
	}
	for i, h := range t.AllowHosts {
		t.AllowHosts[i] = NormalizeHost(h)
	}
	b.require("url", `the URL every attempt is sent to, e.g. url = "http://127.0.0.1:8080/work".`)
	b.require("allow_hosts", `the hosts a run may send load to, a guard against pointing a destructive test at the wrong place, e.g. allow_hosts = ["127.0.0.1", "localhost"].`)
	return t
}

func (d *decoder) decodeClient(blk *hcl.Block) Client {
	b := d.open("client", "client", blk.Body, blk.DefRange, clientSchema)
	c := Client{
		Timeout:     b.duration("timeout", 0),
		Arrivals:    enum(b, "arrivals", "arrival process", DefaultArrivals, arrivalKinds, vocab.ParseArrivals),
		MaxInFlight: b.integer("max_in_flight", DefaultMaxInFlight),
		// Without a retry block the client does not retry; the policy
		// fields still hold their defaults.
		Retry: retry.Policy{
			On:           defaultRetryOn,
			BudgetWindow: DefaultBudgetWindow,
			RetryAfter:   true,
			Backoff:      retry.Backoff{Kind: DefaultBackoffKind, Max: DefaultBackoffMax, Jitter: DefaultJitter},
		},
	}
	deadline := b.duration("deadline", 0)
	b.require("timeout", `τ_out, the patience of one attempt, e.g. timeout = "1s".`)
	if rb := b.one("retry", false, ""); rb != nil {
		c.Retry = d.decodeRetry(rb)
	}
	c.Retry.Deadline = deadline
	if tb := b.one("tracers", false, ""); tb != nil {
		t := d.open("tracers", "client.tracers", tb.Body, tb.DefRange, tracersSchema)
		c.Tracers = &vocab.Tracers{
			Rate:    t.num("rate", DefaultTracerRate),
			Timeout: t.duration("timeout", DefaultTracerTimeout),
		}
	}
	return c
}

func (d *decoder) decodeRetry(blk *hcl.Block) retry.Policy {
	b := d.open("retry", "client.retry", blk.Body, blk.DefRange, retrySchema)
	r := retry.Policy{
		MaxRetries:   b.integer("max_retries", 0),
		On:           b.outcomes("on", defaultRetryOn),
		Budget:       b.optNum("budget"),
		BudgetWindow: b.duration("budget_window", DefaultBudgetWindow),
		RetryAfter:   b.boolean("retry_after", true),
	}
	if tb := b.one("token_bucket", false, ""); tb != nil {
		t := d.open("token_bucket", "client.retry.token_bucket", tb.Body, tb.DefRange, tokenBucketSchema)
		r.TokenBucket = &retry.TokenBucket{
			Capacity:      t.num("capacity", DefaultBucketCapacity),
			RetryCost:     t.num("retry_cost", DefaultRetryCost),
			TimeoutCost:   t.num("timeout_cost", DefaultTimeoutCost),
			SuccessRefund: t.num("success_refund", DefaultSuccessRefund),
		}
	}
	r.Backoff = retry.Backoff{Kind: DefaultBackoffKind, Max: DefaultBackoffMax, Jitter: DefaultJitter}
	if bb := b.one("backoff", false, ""); bb != nil {
		k := d.open("backoff", "client.retry.backoff", bb.Body, bb.DefRange, backoffSchema)
		r.Backoff.Kind = enum(k, "kind", "backoff kind", DefaultBackoffKind, backoffKinds, vocab.ParseBackoffKind)
		base := time.Duration(0)
		if r.Backoff.Kind != vocab.BackoffNone {
			base = DefaultBackoffBase
		}
		r.Backoff.Base = k.duration("base", base)
		r.Backoff.Max = k.duration("max", DefaultBackoffMax)
		r.Backoff.Jitter = enum(k, "jitter", "jitter", DefaultJitter, jitterKinds, vocab.ParseJitter)
	}
	return r
}

func (d *decoder) decodeLayer(i int, blk *hcl.Block) Layer {
	b := d.open("layer", fmt.Sprintf("layer[%d]", i), blk.Body, blk.DefRange, layerSchema)
	d.src.elems[fmt.Sprintf("layer[%d].name", i)] = blk.LabelRanges[0]
	return Layer{
		Name:             blk.Labels[0],
		MaxRetries:       b.integer("max_retries", 0),
		Budget:           b.optNum("budget"),
		RetryProbability: b.num("retry_probability", DefaultRetryProbability),
		Timeout:          b.duration("timeout", 0),
	}
}

func (d *decoder) decodeService(blk *hcl.Block) Service {
	b := d.open("service", "service", blk.Body, blk.DefRange, serviceSchema)
	s := Service{
		Capacity:        b.num("capacity", 0),
		Pods:            b.integer("pods", 0),
		PodRate:         b.num("pod_rate", 0),
		AdmissionBound:  b.duration("admission_bound", 0),
		MaxReplicas:     b.integer("max_replicas", 0),
		ScalabilityPeak: b.integer("scalability_peak", 0),

		Workers:             b.integer("workers", DefaultWorkers),
		ServiceTime:         enum(b, "service_time", "service-time law", DefaultServiceTime, serviceTimes, vocab.ParseServiceTime),
		ServiceCV:           b.num("service_cv", DefaultServiceCV),
		Queue:               enum(b, "queue", "queue discipline", DefaultQueue, queueKinds, vocab.ParseQueue),
		DeadlinePropagation: b.boolean("deadline_propagation", false),
	}
	if ab := b.one("autoscaler", false, ""); ab != nil {
		a := d.open("autoscaler", "service.autoscaler", ab.Body, ab.DefRange, autoscalerSchema)
		s.Autoscaler = &Autoscaler{
			Signal:   enum(a, "signal", "autoscaler signal", "", scalerSignals, vocab.ParseScalerSignal),
			Target:   a.num("target", 0),
			DeadTime: a.duration("dead_time", 0),
		}
		a.require("signal", `what the scaler measures: one of `+quoteList(scalerSignals)+`.`)
		a.require("target", `u*, the target utilization in (0, 1], e.g. target = 0.5.`)
		a.require("dead_time", `τ, from ordering a pod to its first served request, e.g. dead_time = "60s".`)
	}
	return s
}

func (d *decoder) decodeLoad(blk *hcl.Block) LoadProfile {
	b := d.open("load", "load", blk.Body, blk.DefRange, loadSchema)
	l := LoadProfile{
		Baseline: b.num("baseline", 0),
		Warmup:   b.duration("warmup", DefaultWarmup),
		Observe:  b.duration("observe", DefaultObserve),
	}
	b.require("baseline", `λ, the first attempts per second at baseline, e.g. baseline = 50.`)
	if sb := b.one("spike", true, `the overload, e.g. spike { multiplier = 5  duration = "10s" }.`); sb != nil {
		s := d.open("spike", "load.spike", sb.Body, sb.DefRange, spikeSchema)
		l.Spike = Spike{
			Multiplier: s.num("multiplier", 0),
			Duration:   s.duration("duration", 0),
		}
		s.require("multiplier", `k, demand during the spike as a multiple of baseline, e.g. multiplier = 5.`)
		s.require("duration", `Δ, how long the spike lasts, e.g. duration = "10s".`)
	}
	return l
}

func (d *decoder) decodePrometheus(blk *hcl.Block) *Prometheus {
	b := d.open("prometheus", "prometheus", blk.Body, blk.DefRange, prometheusSchema)
	p := &Prometheus{
		Address:        b.str("address", embeddedAddress),
		Scrape:         b.strList("scrape", nil),
		ScrapeInterval: b.duration("scrape_interval", DefaultScrapeInterval),
		Timeout:        b.duration("timeout", DefaultQueryTimeout),
		Ingress:        b.str("ingress", ""),
		FirstAttempts:  b.str("first_attempts", ""),
		Served:         b.str("served", ""),
		Abandoned:      b.str("abandoned", ""),
		Wait:           b.str("wait", ""),
		Pods:           b.str("pods", ""),
	}
	p.Auth, p.TLS = d.decodeAccess(b, "prometheus")
	return p
}

func (d *decoder) decodeRecovery(blk *hcl.Block) Recovery {
	b := d.open("recovery", "recovery", blk.Body, blk.DefRange, recoverySchema)
	return Recovery{
		SuccessRatio: b.num("success_ratio", DefaultSuccessRatio),
		Hold:         b.duration("hold", DefaultHold),
	}
}

func (d *decoder) decodeOnTrap(blk *hcl.Block) *OnTrap {
	b := d.open("on_trap", "on_trap", blk.Body, blk.DefRange, onTrapSchema)
	t := &OnTrap{
		Action:  b.str("action", ""),
		Rate:    b.num("rate", 0),
		Command: b.strList("command", nil),
		Observe: b.duration("observe", DefaultTrapObserve),
	}
	b.require("action", `what to do once the service is judged trapped: one of `+quoteList(onTrapActions)+`.`)
	return t
}

func (d *decoder) decodeGate(blk *hcl.Block) Gate {
	b := d.open("gate", "gate", blk.Body, blk.DefRange, gateSchema)
	return Gate{
		MaxRecovery:      b.duration("max_recovery", 0),
		AllowTrap:        b.boolean("allow_trap", false),
		MaxAmplification: b.num("max_amplification", 0),
	}
}
