// Package scenarios decodes and validates trigger-test scenarios written in
// HCL (attributes: docs/scenarios.md; the code's map: docs/design.md,
// "Scenario HCL"). Every problem is reported as an hcl.Diagnostic with the
// file, line and column of the offending source.
//
// The types in this package are the resolved scenario: durations are
// time.Duration, enumerations are vocab's typed values, defaults are
// filled in, and every value has passed the semantic checks. They know
// nothing of how a scenario is run.
//
// Each block has one file, block_NAME.go, that holds all of it: its
// resolved type, the defaults of its attributes (each the default
// documented on the type's field; those the driver, the model or the
// embedded Prometheus also fill in are vocab's), its hcl.BodySchema, its
// decoding and its semantic checks. A sub-block lives with its block
// (tracers with client, token_bucket and backoff with retry, autoscaler
// with service, spike with load, auth and tls with prometheus), except
// client.retry, which has block_retry.go. What every block uses has a file
// named for it: schema.go (the file's schema, the tree of every block's
// schema the decoder opens blocks from, and the schema helpers),
// decode.go (Load, Parse and the order in which blocks are decoded),
// reader.go (the decoder and its attribute readers), enums.go (enumerated
// attributes into vocab's types), validate.go (the validator and the
// helpers of its checks), sources.go (where each value came from),
// limits.go, diagnostics.go, hints.go (what a diagnostic adds for a common
// mistake), sensitive.go and the smaller ones.
package scenarios
