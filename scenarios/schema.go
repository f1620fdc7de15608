package scenarios

import "github.com/hashicorp/hcl/v2"

// The HCL schema of a scenario (docs/scenarios.md documents every block and
// attribute; docs/design.md, "Scenario HCL", what a new one needs): the
// top-level blocks here, each block's own hcl.BodySchema in its
// block_NAME.go file, beside its resolved type. Attribute names are the
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
