// Package request is the request-level model of docs/model.md: a
// discrete-event simulation of single attempts. It answers what the fluid
// model (package analysis/fluid) cannot: how likely a trigger is, whether a
// busy service ever times out on its own, how long recovery takes when
// arrivals are Poisson and service times vary. It stays in the delay form
// of docs/model.md ("The trap"): an attempt's retry is decided when its
// client's timeout fires, and work whose client has gone is served anyway
// unless deadlines propagate.
//
// Simulate runs the model once, simulateRuns with successive seeds, and
// SimulatePlan turns the runs into the `simulate --model request` document.
// The clients' retries come through the RetryModel interface
// (convert.SimRetry puts retry.Retrier behind it; capRetries is the
// closed forms' cap). TippingSweep runs the model on the collapse law's
// single server (docs/model.md, "The collapse law").
//
// Like package analysis, whose result and row types it returns, the
// package is pure: no I/O, no clock, no goroutines. Time is float64
// seconds and rates are per second.
package request
