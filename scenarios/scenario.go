// Package scenarios decodes and validates trigger-test scenarios written in
// HCL (attributes: docs/scenarios.md; the code's map: docs/design.md,
// "Scenario HCL"). Every problem is reported as an hcl.Diagnostic with the
// file, line and column of the offending source.
//
// The types in this package are the resolved scenario: durations are
// time.Duration, defaults are filled in, and every value has passed the
// semantic checks. They know nothing of how a scenario is run.
package scenarios

import "time"

// Scenario is one decoded and validated trigger test.
type Scenario struct {
	// File is the path the scenario was read from ("" for in-memory sources).
	File string
	// Source is the scenario's text as it was read, once: whatever reads
	// it again (a fleet's agents) gets these bytes, not the file, which a
	// pipe or a process substitution cannot give twice.
	Source []byte
	// Name is the label of the scenario block.
	Name string
	// Description is free text from the scenario block.
	Description string
	// MaxDuration is the hard maximum wall time of a run. Zero means the
	// default: warmup + spike + observe (+ on_trap observe) + 1 minute.
	MaxDuration time.Duration

	Target     Target
	Client     Client
	Layers     []Layer // retry layers believed to sit between client and service, in order
	Service    Service
	Load       LoadProfile
	Prometheus *Prometheus // nil when the scenario has no prometheus block
	Recovery   Recovery
	OnTrap     *OnTrap // nil when the scenario has no on_trap block
	Gate       Gate
	// StopWhen are the run's brakes, in the order declared.
	StopWhen []StopCondition

	// Variables holds the final value of every declared variable after
	// defaults and --var overrides, rendered as HCL literals (for reports);
	// a variable declared `sensitive = true` reads SensitiveValue.
	Variables map[string]string
	// Secrets holds the values of the sensitive variables as they may
	// appear in text (raw and as HCL literals), for redaction from logs,
	// errors and reports; never serialised.
	Secrets []string `json:"-"`

	// Warnings holds problems that do not make the scenario invalid (for
	// example scrape targets given with a remote Prometheus), rendered like
	// errors with Warnings.Render; nil when there are none.
	Warnings *Error `json:"-"`
}
