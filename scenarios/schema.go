package scenarios

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// The HCL schema of a scenario (docs/scenarios.md documents every block and
// attribute; docs/design.md, "Scenario HCL", what a new one needs). Attribute names
// are the snake_case of the resolved types' field names. No attribute is
// marked Required here: required values are checked while decoding, so that
// the diagnostic can point at the block and say what the value means.
//
// Decoding through hcl.BodySchema gives hcl's own diagnostics for unknown
// names ("Unsupported argument ... Did you mean "timeout"?"), wrong label
// counts and attribute/block confusion.

// attrs builds attribute schemas from names.
func attrs(names ...string) []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, len(names))
	for i, n := range names {
		out[i] = hcl.AttributeSchema{Name: n}
	}
	return out
}

// blocks builds block header schemas without labels from type names.
func blocks(types ...string) []hcl.BlockHeaderSchema {
	out := make([]hcl.BlockHeaderSchema, len(types))
	for i, t := range types {
		out[i] = hcl.BlockHeaderSchema{Type: t}
	}
	return out
}

var (
	fileSchema = &hcl.BodySchema{
		Blocks: append([]hcl.BlockHeaderSchema{
			{Type: "variable", LabelNames: []string{"name"}},
			{Type: "scenario", LabelNames: []string{"name"}},
			{Type: "layer", LabelNames: []string{"name"}},
			{Type: "stop_when", LabelNames: []string{"name"}},
		}, blocks("target", "client", "service", "load", "prometheus", "recovery", "on_trap", "gate")...),
	}

	variableSchema = &hcl.BodySchema{Attributes: attrs("default", "description", "sensitive")}

	scenarioSchema = &hcl.BodySchema{Attributes: attrs("description", "max_duration")}

	targetSchema = &hcl.BodySchema{Attributes: attrs("url", "method", "headers", "body", "allow_hosts", "ok_status")}

	clientSchema = &hcl.BodySchema{
		Attributes: attrs("timeout", "arrivals", "max_in_flight", "deadline"),
		Blocks:     blocks("retry", "tracers"),
	}
	retrySchema = &hcl.BodySchema{
		Attributes: attrs("max_retries", "on", "budget", "budget_window", "retry_after"),
		Blocks:     blocks("token_bucket", "backoff"),
	}
	tokenBucketSchema = &hcl.BodySchema{Attributes: attrs("capacity", "retry_cost", "timeout_cost", "success_refund")}
	backoffSchema     = &hcl.BodySchema{Attributes: attrs("kind", "base", "max", "jitter")}
	tracersSchema     = &hcl.BodySchema{Attributes: attrs("rate", "timeout")}

	layerSchema = &hcl.BodySchema{Attributes: attrs("max_retries", "budget", "retry_probability", "timeout")}

	serviceSchema = &hcl.BodySchema{
		Attributes: attrs("capacity", "pods", "pod_rate", "admission_bound", "max_replicas", "scalability_peak",
			"workers", "service_time", "service_cv", "queue", "deadline_propagation"),
		Blocks: blocks("autoscaler"),
	}
	autoscalerSchema = &hcl.BodySchema{Attributes: attrs("signal", "target", "dead_time")}

	loadSchema = &hcl.BodySchema{
		Attributes: attrs("baseline", "warmup", "observe"),
		Blocks:     blocks("spike"),
	}
	spikeSchema = &hcl.BodySchema{Attributes: attrs("multiplier", "duration")}

	prometheusSchema = &hcl.BodySchema{
		Attributes: attrs("address", "scrape", "scrape_interval", "timeout",
			"ingress", "first_attempts", "served", "abandoned", "wait", "pods"),
		Blocks: blocks("auth", "tls"),
	}
	authSchema = &hcl.BodySchema{Attributes: attrs("bearer_token_env", "username_env", "password_env")}
	tlsSchema  = &hcl.BodySchema{Attributes: attrs("ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify")}

	recoverySchema = &hcl.BodySchema{Attributes: attrs("success_ratio", "hold")}
	onTrapSchema   = &hcl.BodySchema{Attributes: attrs("action", "rate", "command", "observe")}
	gateSchema     = &hcl.BodySchema{Attributes: attrs("max_recovery", "allow_trap", "max_amplification")}

	stopWhenSchema = &hcl.BodySchema{
		Attributes: attrs("query", "address", "timeout"),
		Blocks:     blocks("auth", "tls"),
	}
)

// Enumerated values, in the order they are listed to users. The names the
// scenario shares with the model, the driver and the specimen are vocab's;
// the others only a scenario knows.
var (
	arrivalKinds    = vocab.ArrivalsNames()
	outcomeClasses  = vocab.RetryOnNames()
	backoffKinds    = vocab.BackoffKindNames()
	jitterKinds     = vocab.JitterNames()
	scalerSignals   = vocab.ScalerSignalNames()
	serviceTimes    = vocab.ServiceTimeNames()
	queueKinds      = vocab.QueueNames()
	onTrapActions   = []string{"drop", "rate", "command"}
	embeddedAddress = "embedded"
)
