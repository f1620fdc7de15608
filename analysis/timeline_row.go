package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// TimelineRow is one row of a timeline, the one row type of a real run
// (one row of timeline.csv), the fluid model and the request-level model
// (docs/design.md, "timeline.csv"). A row covers [TS, TS + its width): a
// run's rows are one second wide, a model's are its sample (`simulate
// --sample`, 1 s by default). Counts are per second, so a run's counts
// over its second and a model's rates over its sample read alike; waits,
// in-flight attempts and pods are read at the row's end.
//
// Each source fills the fields it knows and leaves the others NaN
// (UnknownRow): a run has no MaxWaitS, a model no tracers, latencies or
// pods, and the service's columns of a run are NaN when the scenario has
// no query for them or Prometheus had no data for that second.
//
// A model counts its attempts when they arrive (a run counts outcomes when
// they complete): every first attempt is answered in time (FirstOK), times
// out (FirstTimeouts) or is refused by the admission bound (FirstErrors,
// an admission bound answers 503), so FirstDone = Sent; Errors is 0 and
// Connect, FirstConnect NaN, since a model refuses no connection;
// IngressPerS is every client attempt, refused ones included; OK is work
// served before its client gave up.
//
// The json keys are the csv columns; a field without a column (csv:"-")
// is one only a model knows. In JSON an unknown (NaN) field is left out.
type TimelineRow struct {
	TS    float64 `csv:"t_s" json:"t_s"`     // start of the row, seconds since the run (or the model's first stage) started
	Phase Phase   `csv:"phase" json:"phase"` // PhaseWarmup, PhaseSpike, PhaseObserve, PhaseOnTrap

	Planned   float64 `csv:"planned" json:"planned"`       // first attempts whose planned time came
	Sent      float64 `csv:"sent" json:"sent"`             // first attempts sent
	Retries   float64 `csv:"retries" json:"retries"`       // retry attempts sent
	Dropped   float64 `csv:"dropped" json:"dropped"`       // planned first attempts dropped by the driver's lag bound
	Refused   float64 `csv:"refused" json:"refused"`       // attempts the driver refused at max_in_flight
	FirstOK   float64 `csv:"first_ok" json:"first_ok"`     // first attempts that completed ok
	FirstDone float64 `csv:"first_done" json:"first_done"` // first attempts that completed, any outcome
	OK        float64 `csv:"ok" json:"ok"`                 // attempts that completed ok
	Timeouts  float64 `csv:"timeouts" json:"timeouts"`     // attempts that timed out
	Rejected  float64 `csv:"rejected" json:"rejected"`     // attempts answered 503 or 429
	Errors    float64 `csv:"errors" json:"errors"`         // attempts that failed otherwise (5xx, connect, 4xx, other)
	Connect   float64 `csv:"connect" json:"connect"`       // of Errors, attempts that could not connect
	// Failed first attempts by class: timed out at the client, answered
	// with an error status (5xx, 503, 429, 4xx), connection refused or
	// reset. A failure of any class counts for the trigger, t0 and the
	// first-attempt success ratio; the classes say how the clients failed.
	FirstTimeouts float64 `csv:"first_timeouts" json:"first_timeouts"`
	FirstErrors   float64 `csv:"first_errors" json:"first_errors"`
	FirstConnect  float64 `csv:"first_connect" json:"first_connect"`
	// FirstClientErrors is the part of FirstErrors answered 4xx other than
	// 429 (401 and 403 included, FirstAuth): the request's own fault
	// (refused credentials, a wrong path), not the service failing under
	// load.
	FirstClientErrors float64 `csv:"first_client_errors" json:"first_client_errors"`
	Succeeded         float64 `csv:"succeeded" json:"succeeded"` // logical requests that ended with a success
	Failed            float64 `csv:"failed" json:"failed"`       // logical requests that ended after all attempts failed
	Pending           float64 `csv:"pending" json:"pending"`     // logical requests not ended, at the end of the second
	InFlight          float64 `csv:"in_flight" json:"in_flight"` // attempts in flight, at the end of the second

	TracerWaitS float64 `csv:"tracer_wait_s" json:"tracer_wait_s"` // median wait of tracers that completed this second
	LagP99S     float64 `csv:"lag_p99_s" json:"lag_p99_s"`         // driver dispatch lag, 99th percentile
	LatencyP50S float64 `csv:"latency_p50_s" json:"latency_p50_s"` // attempt latency, median
	LatencyP99S float64 `csv:"latency_p99_s" json:"latency_p99_s"` // attempt latency, 99th percentile
	// Latency of attempts answered with a server error (5xx, 503): 10th,
	// 50th and 90th percentiles, seconds. A proxy that gives up on the
	// service answers at a nearly fixed latency, its own patience.
	ErrorLatencyP10S float64 `csv:"error_latency_p10_s" json:"error_latency_p10_s"`
	ErrorLatencyP50S float64 `csv:"error_latency_p50_s" json:"error_latency_p50_s"`
	ErrorLatencyP90S float64 `csv:"error_latency_p90_s" json:"error_latency_p90_s"`
	// Tracers completed this second: answered by the service (their latency
	// is a wait sample), and answered with a server error (not a wait sample:
	// a layer in front of the service gave up), with that error's median latency.
	TracerServed           float64 `csv:"tracers_served" json:"tracers_served"`
	TracerErrors           float64 `csv:"tracer_errors" json:"tracer_errors"`
	TracerErrorLatencyP50S float64 `csv:"tracer_error_latency_p50_s" json:"tracer_error_latency_p50_s"`
	// TracersRefused counts tracers not sent this second because their
	// share of max_in_flight was taken (tracers never wait for a slot).
	TracersRefused float64 `csv:"tracers_refused" json:"tracers_refused"`
	// TracersSent counts tracers sent this second: they reach the service
	// beside the clients' attempts, and its ingress counts them too.
	TracersSent float64 `csv:"tracers_sent" json:"tracers_sent"`

	IngressPerS      float64 `csv:"ingress_per_s" json:"ingress_per_s"`             // attempts arriving at the service
	ServiceFirstPerS float64 `csv:"service_first_per_s" json:"service_first_per_s"` // first attempts arriving at the service
	ServedPerS       float64 `csv:"served_per_s" json:"served_per_s"`               // requests the service finished
	AbandonedPerS    float64 `csv:"abandoned_per_s" json:"abandoned_per_s"`         // finished after their client left: retry debt
	WaitS            float64 `csv:"wait_s" json:"wait_s"`                           // the service's queue wait
	Pods             float64 `csv:"pods" json:"pods"`                               // ready replicas
	// BacklogWaitS is the wait integrated from the service's rates since the
	// spike began: Σ (ingress − served)/C over the seconds, C the scenario's
	// capacity; it lags the service by its queries' windows.
	BacklogWaitS float64 `csv:"backlog_wait_s" json:"backlog_wait_s"`
	// DriverStalledS is how long, in seconds, the driver's own process did
	// not run in this second (stopped, starved of CPU). DriverLost is 1
	// when the second's outcomes are the driver's rather than the
	// service's: it stalled in this second or the one before, or dropped
	// first attempts it could not send on schedule; 0 otherwise. Such a
	// second neither triggers, nor fails, nor breaks a recovery.
	DriverStalledS float64 `csv:"driver_stalled_s" json:"driver_stalled_s"`
	DriverLost     float64 `csv:"driver_lost" json:"driver_lost"`
	// MetricsMissing is how many of the scenario's queries had no value for
	// this second: Prometheus failed, answered empty, or answered after the
	// second's deadline (then the row is written without its metrics). NaN
	// when the scenario reads no metrics.
	MetricsMissing float64 `csv:"metrics_missing" json:"metrics_missing"`
	// FirstAuth is the part of FirstClientErrors answered 401 or 403: the
	// request's credentials refused (vocab.OutcomeAuth).
	FirstAuth float64 `csv:"first_auth" json:"first_auth"`
	// Fault is 1 when the run's fault held in this second (its start
	// command ended, its stop not begun), 0 when it did not; NaN (an empty
	// column) for a run without a fault.
	Fault float64 `csv:"fault" json:"fault"`

	// Requests are each request of a run's mix's first attempts this
	// second, in the mix's order; nil for one request and in a model's
	// rows. timeline.csv gives them columns of their own, named by the
	// request (request.NAME.first, …).
	Requests []RequestRow `csv:"-" json:"requests,omitempty"`

	// Model only: no columns of timeline.csv, NaN (nil) in a run's rows.

	// MaxWaitS is the largest wait w = backlog/C within the row, seconds.
	MaxWaitS float64 `csv:"-" json:"max_wait_s"`
	// RetriesDroppedPerS are retries per second the retry budget did not
	// allow (docs/model.md, "Retry debt and amplification").
	RetriesDroppedPerS float64 `csv:"-" json:"retries_dropped_per_s"`
	// AttemptsPerS are the client attempts arriving per second by attempt
	// number: [0] first attempts (Sent), [i] retry i (their sum is
	// Retries); the request-level model counts retries past the 15th in
	// the last element.
	AttemptsPerS []float64 `csv:"-" json:"attempts_per_s,omitempty"`
}

// RequestRow is what one request of the mix got in a timeline row: its
// first attempts sent, and completed ok or failed by class (the classes
// of TimelineRow's First* fields).
type RequestRow struct {
	First             float64 `json:"first"`
	FirstOK           float64 `json:"first_ok"`
	FirstTimeouts     float64 `json:"first_timeouts"`
	FirstErrors       float64 `json:"first_errors"`
	FirstConnect      float64 `json:"first_connect"`
	FirstClientErrors float64 `json:"first_client_errors"`
	FirstOther        float64 `json:"first_other"`
}

// FirstDone is the request's first attempts completed, any outcome.
func (q RequestRow) FirstDone() float64 {
	return q.FirstOK + q.FirstTimeouts + q.FirstErrors + q.FirstConnect + q.FirstOther
}

// RequestColumns are the timeline.csv columns of a request named name,
// in RequestRow's order.
func RequestColumns(name string) []string {
	out := make([]string, 0, len(requestColumnSuffixes))
	for _, c := range requestColumnSuffixes {
		out = append(out, "request."+name+"."+c)
	}
	return out
}

var requestColumnSuffixes = []string{"first", "first_ok", "first_timeouts", "first_errors", "first_connect", "first_client_errors", "first_other"}

// RequestColumnOf splits a request's timeline.csv column into the
// request's name and the index of the value in RequestColumns' order;
// ok is false for a column that is no request's.
func RequestColumnOf(column string) (name string, index int, ok bool) {
	rest, found := strings.CutPrefix(column, "request.")
	dot := strings.LastIndex(rest, ".")
	if !found || dot <= 0 {
		return "", 0, false
	}
	for i, c := range requestColumnSuffixes {
		if rest[dot+1:] == c {
			return rest[:dot], i, true
		}
	}
	return "", 0, false
}

// SetValue sets the row's number at index i of RequestColumns' order.
func (q *RequestRow) SetValue(i int, v float64) {
	switch i {
	case 0:
		q.First = v
	case 1:
		q.FirstOK = v
	case 2:
		q.FirstTimeouts = v
	case 3:
		q.FirstErrors = v
	case 4:
		q.FirstConnect = v
	case 5:
		q.FirstClientErrors = v
	case 6:
		q.FirstOther = v
	}
}

// Values are the row's numbers in RequestColumns' order.
func (q RequestRow) Values() []float64 {
	return []float64{q.First, q.FirstOK, q.FirstTimeouts, q.FirstErrors, q.FirstConnect, q.FirstClientErrors, q.FirstOther}
}

// FirstSuccessRatio is the share of first attempts completed this second
// that succeeded; NaN when none completed.
func (m TimelineRow) FirstSuccessRatio() float64 {
	if m.FirstDone == 0 {
		return math.NaN()
	}
	return m.FirstOK / m.FirstDone
}

// ByDriver reports whether the second's outcomes are the driver's own
// (DriverLost): they say nothing of the service.
func (m TimelineRow) ByDriver() bool { return m.DriverLost > 0 }

// Failing reports whether the second failed: more of its completed first
// attempts failed, whatever the failure, than the recovery rule's success
// ratio allows. A second whose outcomes are the driver's own (ByDriver:
// its stall, its drops) belongs to no state of the service and never
// fails. This is the one definition of a failed second (docs/model.md,
// "What a trigger test measures", item 3): the trigger, t0, the recovery,
// the outcome the clients saw and the blind signals all use it; that the
// failures may be the requests' own fault (client errors) is judged over
// the run, not per second.
func (m TimelineRow) Failing(successRatio float64) bool {
	return !m.ByDriver() && m.FirstDone > 0 && m.FirstFailed() > (1-successRatio)*m.FirstDone
}

// Attempts is every attempt the driver sent this second.
func (m TimelineRow) Attempts() float64 { return m.Sent + m.Retries }

// Failures is every attempt that completed without success this second.
func (m TimelineRow) Failures() float64 { return m.Timeouts + m.Rejected + m.Errors }

// ZeroIfUnknown is a row's count v, or 0 when it is unknown (NaN: a
// column the timeline was written without), for sums over rows.
func ZeroIfUnknown(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// FirstFailed is every first attempt that completed without success this
// second, whatever the class.
func (m TimelineRow) FirstFailed() float64 { return m.FirstDone - m.FirstOK }

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

// MarshalJSON encodes the row as an object of its known fields: a NaN or
// infinite number, an empty phase and an empty AttemptsPerS are left out
// (a non-finite element of AttemptsPerS is null).
func (m TimelineRow) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	v := reflect.ValueOf(m)
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Float64:
			if !finite(f.Float()) {
				continue
			}
		case reflect.String, reflect.Slice:
			if f.Len() == 0 {
				continue
			}
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, "%q:", name)
		if err := encodeFinite(&buf, f); err != nil {
			return nil, fmt.Errorf("timeline row: %s: %w", name, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a row MarshalJSON wrote: a field left out (or null)
// is NaN.
func (m *TimelineRow) UnmarshalJSON(b []byte) error {
	type plain TimelineRow // the same fields without these methods
	row := UnknownRow()
	if err := json.Unmarshal(b, (*plain)(&row)); err != nil {
		return err
	}
	*m = row
	return nil
}
