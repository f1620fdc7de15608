package vocab

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Defaults that more than one package fills in when a value is left out
// (zero): the scenario's documented default and the package's own zero
// value mean the same.
const (
	// DefaultMaxInFlight bounds the attempts in flight at once, in
	// concurrent attempts (client.max_in_flight).
	DefaultMaxInFlight = 20000
	// DefaultBudgetWindow is the sliding window over which a retry budget
	// is counted (client.retry.budget_window).
	DefaultBudgetWindow = 10 * time.Second
	// DefaultBackoffMax caps exponential and decorrelated backoff delays
	// (client.retry.backoff.max).
	DefaultBackoffMax = 10 * time.Second
	// DefaultTracerRate is the wait tracers' rate, in probes per second
	// (client.tracers.rate).
	DefaultTracerRate = 2
	// DefaultTracerTimeout is one wait tracer's patience
	// (client.tracers.timeout).
	DefaultTracerTimeout = 60 * time.Second
	// DefaultWorkers is the requests one pod serves at a time, in requests
	// (service.workers).
	DefaultWorkers = 1
	// DefaultServiceCV is the coefficient of variation of lognormal service
	// times, dimensionless (service.service_cv).
	DefaultServiceCV = 1
	// DefaultScrapeInterval is the time between two scrapes of a target by
	// the embedded Prometheus (prometheus.scrape_interval).
	DefaultScrapeInterval = time.Second
	// DefaultSuccessRatio is the first-attempt success ratio, a fraction in
	// (0, 1], above which the service counts as recovered
	// (recovery.success_ratio).
	DefaultSuccessRatio = 0.99
)

// Limits that more than one package enforces.
const (
	// MaxTracerRate is the highest wait tracers' rate, in probes per
	// second: tracers are probes beside the load, not load, and each one
	// holds a slot for up to its long timeout.
	MaxTracerRate = 100
)

// DefaultFaultTimeout bounds each of a fault's commands (fault.timeout),
// and a restore whose journal gives no timeout.
const DefaultFaultTimeout = 30 * time.Second

// ParseShare reads a share written as "20%" or as a number (0.2), from 0
// to 10 (1000 %): a regression threshold of trigger compare and of the
// gate's baseline.
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a share such as 20%% or 0.2", s)
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 10) {
		return 0, fmt.Errorf("%q is outside 0%% to 1000%%", s)
	}
	return v, nil
}
