package scenarios

import (
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Defaults filled in for attributes a scenario leaves out; each is the
// default documented on the field of the resolved type. Those the driver,
// the model or the embedded Prometheus also fill in are vocab's.
const (
	// DefaultMethod is target.method.
	DefaultMethod = "GET"
	// DefaultMaxInFlight is client.max_in_flight, in concurrent attempts.
	DefaultMaxInFlight = vocab.DefaultMaxInFlight
	// DefaultBudgetWindow is client.retry.budget_window (10 s).
	DefaultBudgetWindow = vocab.DefaultBudgetWindow
	// DefaultBackoffBase is client.retry.backoff.base when kind is not
	// DefaultBackoffKind.
	DefaultBackoffBase = 100 * time.Millisecond
	// DefaultBackoffMax is client.retry.backoff.max (10 s).
	DefaultBackoffMax = vocab.DefaultBackoffMax
	// DefaultBucketCapacity is client.retry.token_bucket.capacity, in tokens.
	DefaultBucketCapacity = 500
	// DefaultRetryCost is client.retry.token_bucket.retry_cost, in tokens.
	DefaultRetryCost = 5
	// DefaultTimeoutCost is client.retry.token_bucket.timeout_cost, in tokens.
	DefaultTimeoutCost = 10
	// DefaultSuccessRefund is client.retry.token_bucket.success_refund, in tokens.
	DefaultSuccessRefund = 1
	// DefaultTracerRate is client.tracers.rate, in probes per second.
	DefaultTracerRate = vocab.DefaultTracerRate
	// DefaultTracerTimeout is client.tracers.timeout (60 s).
	DefaultTracerTimeout = vocab.DefaultTracerTimeout
	// DefaultWorkers is service.workers, requests one pod serves at a time.
	DefaultWorkers = vocab.DefaultWorkers
	// DefaultServiceCV is service.service_cv, dimensionless.
	DefaultServiceCV = vocab.DefaultServiceCV
	// DefaultRetryProbability is layer.retry_probability.
	DefaultRetryProbability = 1
	// DefaultWarmup is load.warmup.
	DefaultWarmup = 20 * time.Second
	// DefaultObserve is load.observe.
	DefaultObserve = 3 * time.Minute
	// DefaultScrapeInterval is prometheus.scrape_interval (embedded mode, 1 s).
	DefaultScrapeInterval = vocab.DefaultScrapeInterval
	// DefaultQueryTimeout is prometheus.timeout, per query.
	DefaultQueryTimeout = 10 * time.Second
	// DefaultSuccessRatio is recovery.success_ratio, a fraction.
	DefaultSuccessRatio = vocab.DefaultSuccessRatio
	// DefaultHold is recovery.hold.
	DefaultHold = 10 * time.Second
	// DefaultTrapObserve is on_trap.observe.
	DefaultTrapObserve = 2 * time.Minute
	// DefaultStopTimeout is stop_when.timeout, per evaluation.
	DefaultStopTimeout = 2 * time.Second
)

// Defaults of the enumerated attributes; the values are vocab's.
const (
	// DefaultArrivals is client.arrivals.
	DefaultArrivals = vocab.DefaultArrivals
	// DefaultBackoffKind is client.retry.backoff.kind.
	DefaultBackoffKind = vocab.DefaultBackoffKind
	// DefaultJitter is client.retry.backoff.jitter.
	DefaultJitter = vocab.DefaultJitter
	// DefaultServiceTime is service.service_time.
	DefaultServiceTime = vocab.DefaultServiceTime
	// DefaultQueue is service.queue.
	DefaultQueue = vocab.DefaultQueue
)

// defaultRetryOn is client.retry.on: vocab.DefaultRetryOn, timeouts,
// connection failures and 5xx other than 503.
var defaultRetryOn = retry.NewOutcomeSet(vocab.DefaultRetryOn()...)
