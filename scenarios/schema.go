package scenarios

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// The HCL schema of a scenario (docs/scenarios.md documents every block and
// attribute, and TestReferenceDocMatchesSchema holds it to that;
// docs/design.md, "Scenario HCL", what a new one needs): the top-level
// blocks here, each block's own hcl.BodySchema in its block_NAME.go file,
// beside its resolved type, and nestedSchemas joining them into one tree
// that the decoder opens every block from. Attribute names are the
// snake_case of the resolved types' field names. No attribute is marked
// Required here: required values are checked while decoding, so that the
// diagnostic can point at the block and say what the value means.
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

// fileSchema is the scenario file's: its top-level blocks.
var fileSchema = &hcl.BodySchema{
	Blocks: append([]hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "scenario", LabelNames: []string{"name"}},
		{Type: "layer", LabelNames: []string{"name"}},
		{Type: "stop_when", LabelNames: []string{"name"}},
		{Type: "data", LabelNames: []string{"name"}},
		{Type: "fault", LabelNames: []string{"name"}},
	}, blocks("target", "client", "service", "load", "prometheus", "recovery", "on_trap", "gate", "notify", "campaign", "expected_spike")...),
}

// nestedSchemas maps each schema to the schemas of the blocks it declares,
// by block type: from fileSchema, the tree of every block a scenario may
// write. The decoder opens each block with the schema it finds here
// (schemaOf, body.childSchema), so a block declared in a schema but missing
// here fails the first time it is decoded, and the reference test reads
// the whole language from this tree. A tls or auth block has one schema
// wherever it appears.
var nestedSchemas = map[*hcl.BodySchema]map[string]*hcl.BodySchema{
	fileSchema: {
		"variable":       variableSchema,
		"scenario":       scenarioSchema,
		"target":         targetSchema,
		"client":         clientSchema,
		"layer":          layerSchema,
		"service":        serviceSchema,
		"load":           loadSchema,
		"prometheus":     prometheusSchema,
		"recovery":       recoverySchema,
		"on_trap":        onTrapSchema,
		"stop_when":      stopWhenSchema,
		"gate":           gateSchema,
		"notify":         notifySchema,
		"campaign":       campaignSchema,
		"expected_spike": expectedSpikeSchema,
		"data":           dataSchema,
		"fault":          faultSchema,
	},
	targetSchema:     {"tls": tlsSchema, "request": requestSchema, "grpc": grpcSchema},
	requestSchema:    {"grpc": requestGRPCSchema},
	clientSchema:     {"retry": retrySchema, "tracers": tracersSchema},
	retrySchema:      {"token_bucket": tokenBucketSchema, "backoff": backoffSchema},
	serviceSchema:    {"autoscaler": autoscalerSchema},
	loadSchema:       {"spike": spikeSchema},
	prometheusSchema: {"auth": authSchema, "tls": tlsSchema},
	stopWhenSchema:   {"auth": authSchema, "tls": tlsSchema},
}

// nestedSchema returns the schema of the blocks of type typ that parent
// declares; it panics when parent declares no such block or the tree has
// no schema for it, a decoder bug that any test decoding the block finds.
func nestedSchema(parent *hcl.BodySchema, typ string) *hcl.BodySchema {
	declared := false
	for _, h := range parent.Blocks {
		declared = declared || h.Type == typ
	}
	s := nestedSchemas[parent][typ]
	if !declared || s == nil {
		panic(fmt.Sprintf("scenarios: no schema for a block of type %q here (declared: %v)", typ, declared))
	}
	return s
}

// schemaOf returns the schema of the block at typePath: its type after
// those of the blocks around it, joined by dots, from the file's top
// ("client", "client.retry.backoff", "target.request").
func schemaOf(typePath string) *hcl.BodySchema {
	s := fileSchema
	for _, typ := range strings.Split(typePath, ".") {
		s = nestedSchema(s, typ)
	}
	return s
}

// childSchema returns the schema of the blocks of type typ inside b.
func (b *body) childSchema(typ string) *hcl.BodySchema { return nestedSchema(b.schema, typ) }
