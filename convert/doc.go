// Package convert turns a resolved scenario into what the models and the
// driver take, once: the model's inputs (analysis.PlanInputs), the clients'
// retry policy and the driver's configuration (loadgen), the request-level
// model's configuration with retry.Retrier as its retry decider, the
// run's horizon, and the delay of each query signal as its text and the
// embedded server's scrape interval give it. `plan`, `simulate` and `run`
// all start from a Test; none of them converts a scenario on its own.
//
// It links neither the embedded Prometheus nor the runner: the commands
// that send nothing need only this package and analysis.
package convert
