// Package analysis is the model behind a trigger test: the closed forms of
// docs/model.md, the plan, the verdicts with the one verdict rule (Judge),
// the gate, the timeline row and the result document that plan, simulate
// and run all produce, and ModelResult, what either simulator returns.
// The simulators are in analysis/fluid and analysis/request, the
// estimators a run uses in analysis/infer; they import this package, never
// the other way round.
//
// The package is pure: no I/O, no clock, no goroutines, and of this module
// it imports only vocab, the shared names and defaults. Time is float64 seconds, rates are per
// second, and every formula's comment names the section of docs/model.md
// it implements; the package's place in the module is in docs/design.md,
// "Layout".
//
// Symbols follow docs/model.md, "Symbols": λ demand (first attempts/s),
// C capacity (work/s), ρ = λ/C, τ_out client timeout (s), R retries after
// the first attempt, β retry budget, A amplification, k spike multiple,
// Δ spike length (s), b admission bound (s), M replica ceiling, τ dead
// time (s).
package analysis
