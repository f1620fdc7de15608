// Package infer holds the estimators a run uses (docs/model.md, "What a
// trigger test measures", item 4): Infer reads λ, C, ρ, t0, A_client,
// A_fail, the hidden factor and A from the slope and from the recovery out
// of a run's timeline rows (analysis.TimelineRow) and the driver's
// cohorts, each with its 95 % interval (Interval); EstimateTable sets them
// beside the plan's prediction for the result document; FindRecovery,
// Triggered and firstFailure read recovery, trigger and t0 from the rows.
//
// Like package analysis the package is pure: no I/O, no clock, no
// goroutines. Time is float64 seconds and rates are per second.
package infer
