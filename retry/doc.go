// Package retry is the clients' retry behaviour: the policy a client
// population follows (Policy: a cap on retries, the outcome classes
// retried, a retry budget, a token bucket, backoff with jitter, Retry-After,
// an overall deadline) and Retrier, which applies it as pure decisions
// with the clock passed in. The driver (loadgen) asks a Retrier before
// each retry, the request-level model asks the same Retrier on its virtual
// clock, and the Prometheus client backs off between its own retries with
// Backoff. The amplification each setting gives is in docs/model.md,
// "Retry debt and amplification". It imports only vocab.
package retry
