package analysis

import (
	"math"
	"reflect"
)

// TimelineRow is one second of a real run as the runner records it: the
// driver's own counts and the service's metrics from Prometheus. It is one
// row of timeline.csv. Service-side values are NaN when the scenario has no
// query for them or Prometheus had no data for that second.
type TimelineRow struct {
	TS    float64 `csv:"t_s"`   // start of the second, seconds since the run started
	Phase string  `csv:"phase"` // warmup, spike, observe, on_trap

	Planned   float64 `csv:"planned"`    // first attempts whose planned time came
	Sent      float64 `csv:"sent"`       // first attempts sent
	Retries   float64 `csv:"retries"`    // retry attempts sent
	Dropped   float64 `csv:"dropped"`    // planned first attempts dropped by the driver's lag bound
	Refused   float64 `csv:"refused"`    // attempts the driver refused at max_in_flight
	FirstOK   float64 `csv:"first_ok"`   // first attempts that completed ok
	FirstDone float64 `csv:"first_done"` // first attempts that completed, any outcome
	OK        float64 `csv:"ok"`         // attempts that completed ok
	Timeouts  float64 `csv:"timeouts"`   // attempts that timed out
	Rejected  float64 `csv:"rejected"`   // attempts answered 503 or 429
	Errors    float64 `csv:"errors"`     // attempts that failed otherwise (5xx, connect, 4xx, other)
	Connect   float64 `csv:"connect"`    // of Errors, attempts that could not connect
	// Failed first attempts by class: timed out at the client, answered
	// with an error status (5xx, 503, 429, 4xx), connection refused or
	// reset. A failure of any class counts for the trigger, t0 and the
	// first-attempt success ratio; the classes say how the clients failed.
	FirstTimeouts float64 `csv:"first_timeouts"`
	FirstErrors   float64 `csv:"first_errors"`
	FirstConnect  float64 `csv:"first_connect"`
	Succeeded     float64 `csv:"succeeded"` // logical requests that ended with a success
	Failed        float64 `csv:"failed"`    // logical requests that ended after all attempts failed
	Pending       float64 `csv:"pending"`   // logical requests not ended, at the end of the second
	InFlight      float64 `csv:"in_flight"` // attempts in flight, at the end of the second

	TracerWaitS float64 `csv:"tracer_wait_s"` // median wait of tracers that completed this second
	LagP99S     float64 `csv:"lag_p99_s"`     // driver dispatch lag, 99th percentile
	LatencyP50S float64 `csv:"latency_p50_s"` // attempt latency, median
	LatencyP99S float64 `csv:"latency_p99_s"` // attempt latency, 99th percentile
	// Latency of attempts answered with a server error (5xx, 503): 10th,
	// 50th and 90th percentiles, seconds. A proxy that gives up on the
	// service answers at a nearly fixed latency, its own patience.
	ErrorLatencyP10S float64 `csv:"error_latency_p10_s"`
	ErrorLatencyP50S float64 `csv:"error_latency_p50_s"`
	ErrorLatencyP90S float64 `csv:"error_latency_p90_s"`
	// Tracers completed this second: answered by the service (their latency
	// is a wait sample), and answered with a server error (not a wait sample:
	// a layer in front of the service gave up), with that error's median latency.
	TracerServed           float64 `csv:"tracers_served"`
	TracerErrors           float64 `csv:"tracer_errors"`
	TracerErrorLatencyP50S float64 `csv:"tracer_error_latency_p50_s"`
	// TracersRefused counts tracers not sent this second because their
	// share of max_in_flight was taken (tracers never wait for a slot).
	TracersRefused float64 `csv:"tracers_refused"`

	IngressPerS      float64 `csv:"ingress_per_s"`       // attempts arriving at the service
	ServiceFirstPerS float64 `csv:"service_first_per_s"` // first attempts arriving at the service
	ServedPerS       float64 `csv:"served_per_s"`        // requests the service finished
	AbandonedPerS    float64 `csv:"abandoned_per_s"`     // finished after their client left: retry debt
	WaitS            float64 `csv:"wait_s"`              // the service's queue wait
	Pods             float64 `csv:"pods"`                // ready replicas
	// BacklogWaitS is the wait integrated from the service's rates since the
	// spike began: Σ (ingress − served)/C over the seconds, C the scenario's
	// capacity; it lags the service by its queries' windows.
	BacklogWaitS float64 `csv:"backlog_wait_s"`
	// MetricsMissing is how many of the scenario's queries had no value for
	// this second: Prometheus failed, answered empty, or answered after the
	// second's deadline (then the row is written without its metrics). NaN
	// when the scenario reads no metrics.
	MetricsMissing float64 `csv:"metrics_missing"`
}

// FirstSuccessRatio is the share of first attempts completed this second
// that succeeded; NaN when none completed.
func (m TimelineRow) FirstSuccessRatio() float64 {
	if m.FirstDone == 0 {
		return math.NaN()
	}
	return m.FirstOK / m.FirstDone
}

// Attempts is every attempt the driver sent this second.
func (m TimelineRow) Attempts() float64 { return m.Sent + m.Retries }

// Failures is every attempt that completed without success this second.
func (m TimelineRow) Failures() float64 { return m.Timeouts + m.Rejected + m.Errors }

// FirstFailed is every first attempt that completed without success this
// second, whatever the class.
func (m TimelineRow) FirstFailed() float64 { return m.FirstDone - m.FirstOK }

// failing reports whether more first attempts failed this second than the
// success threshold allows: the second belongs to a failed state.
func (m TimelineRow) failing(threshold float64) bool {
	return m.FirstDone > 0 && m.FirstFailed() > (1-threshold)*m.FirstDone
}

// UnknownRow returns a row whose every number is unknown (NaN), for a
// source to fill the fields it knows.
func UnknownRow() TimelineRow {
	var m TimelineRow
	v := reflect.ValueOf(&m).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Float64 {
			f.SetFloat(math.NaN())
		}
	}
	return m
}
