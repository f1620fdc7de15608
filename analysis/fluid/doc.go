// Package fluid is the fluid model of docs/model.md ("The trap") in delay
// form: a FIFO queue served at a fixed capacity, whose clients give up
// after τ_out and retry, and which serves abandoned work. Demand is a
// piecewise-constant schedule (analysis.DemandStage); the model integrates
// it in fixed steps and samples a timeline of analysis.TimelineRow.
//
// Simulate runs one configuration and returns an analysis.ModelResult
// judged by the one verdict rule (analysis.Judge); SimulatePlan runs a
// scenario's plan inputs and returns the `simulate --model fluid`
// document.
//
// Like package analysis the package is pure: no I/O, no clock, no
// goroutines. Time is float64 seconds and rates are per second.
package fluid
