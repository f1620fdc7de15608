// Package prom reads Prometheus for the runner: a Remote client of any
// Prometheus-compatible HTTP API, and an Embedded Prometheus (TSDB, PromQL
// engine, scrape loops and a small HTTP API on loopback) for runs without
// one. Both are read through the same Querier, and the Embedded server is
// read through a Remote pointed at its own URL, so the client code the
// runner uses is the code that reads a real server (docs/design.md,
// "Layout"). It imports no other package of this module.
//
// Units: times are time.Time, durations time.Duration; sample values are
// whatever the query computes (rates in 1/s, durations in seconds).
//
// The embedded server imports only tsdb, promql, promql/parser, storage,
// model/labels, model/textparse, model/timestamp and model/value from
// github.com/prometheus/prometheus; it writes its own HTTP API in the JSON
// format of Prometheus' /api/v1 so that client_golang's v1 client and a
// Grafana data source can read it.
package prom
