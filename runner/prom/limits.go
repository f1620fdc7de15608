package prom

import (
	"log/slog"
	"time"

	"github.com/prometheus/prometheus/promql"

	"github.com/trigger-test/trigger/internal/queryshape"
)

// Bounds of the embedded server's PromQL engine. With the text's own
// bounds (queryshape.CheckCost: evaluation steps, step, length, depth),
// checked on every query the API serves before evaluation, they bound
// what one query may cost: nothing a query asks can take the run's
// memory (docs/safety.md).
const (
	// maxConcurrentQueries bounds the PromQL evaluations in flight of
	// the run's own client (Embedded.Querier).
	maxConcurrentQueries = 4
	// maxOtherQueries bounds those of every other client (Grafana,
	// promtool, with Embedded.Token), in slots of their own.
	maxOtherQueries = 2
	// queryTimeout bounds one PromQL evaluation in the engine, whatever
	// timeout the request asks for.
	queryTimeout = 10 * time.Second
	// maxSamplesPerQuery bounds the samples one query holds in memory at
	// once (about 16 bytes each: 32 MB).
	maxSamplesPerQuery = 2_000_000
	// maxSeriesPerQuery bounds the series one query may select.
	maxSeriesPerQuery = 100_000
	// maxSamplesReadPerQuery bounds the samples one query may read from
	// the TSDB in all.
	maxSamplesReadPerQuery = 50_000_000
)

// newEngine returns the engine of the embedded server: lookback is
// PromQL's lookback delta, interval the step of a subquery without one.
func newEngine(logger *slog.Logger, lookback, interval time.Duration) *promql.Engine {
	e := promql.NewEngine(promql.EngineOpts{
		Logger:               logger,
		MaxSamples:           maxSamplesPerQuery,
		Timeout:              queryTimeout,
		LookbackDelta:        lookback,
		EnableAtModifier:     true,
		EnableNegativeOffset: true,
		EnableQueryCost:      true,
		Parser:               queryshape.Parser(),
		// A subquery without a step uses the scrape interval.
		NoStepSubqueryIntervalFn: func(int64) int64 { return interval.Milliseconds() },
	})
	e.SetQueryLimits(maxSeriesPerQuery, maxSamplesReadPerQuery, queryTimeout)
	return e
}
