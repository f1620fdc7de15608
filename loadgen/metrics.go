package loadgen

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trigger-test/trigger/vocab"
)

// kind is the label value of an attempt's kind.
type kind uint8

const (
	kindFirst kind = iota
	kindRetry
	kindTracer
	numKinds
)

var kindNames = [numKinds]string{"first", "retry", "tracer"}

// metrics are a driver's trigger_* Prometheus collectors (docs/design.md,
// "Wire headers and metric names": counters end in _total, durations in
// seconds, labels bounded: kind has 3 values, outcome 8, result 2).
type metrics struct {
	reg      *prometheus.Registry
	planned  prometheus.Counter
	attempts [numKinds][vocab.NumOutcomes]prometheus.Counter
	sent     [numKinds]prometheus.Counter
	requests [2]prometheus.Counter // succeeded, failed
	dropped  prometheus.Counter
	refused  prometheus.Counter
	// tracerRefused counts tracers not sent for want of a slot.
	tracerRefused prometheus.Counter
	wait          prometheus.Histogram
	lag           prometheus.Histogram
	duration      [numKinds]prometheus.Observer
}

func newMetrics(inFlight, pending func() float64, extra prometheus.Registerer) (*metrics, error) {
	m := &metrics{reg: prometheus.NewRegistry()}
	planned := prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_first_attempts_planned_total",
		Help: "First attempts whose planned send time was reached (sent, dropped or refused)."})
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "trigger_attempts_total",
		Help: "Completed attempts by kind (first, retry, tracer) and outcome class."}, []string{"kind", "outcome"})
	sent := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "trigger_attempts_sent_total",
		Help: "Attempts sent by kind (first, retry, tracer)."}, []string{"kind"})
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "trigger_requests_total",
		Help: "Logical requests that ended, by result (succeeded, failed after every attempt allowed)."}, []string{"result"})
	dropped := prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_dropped_total",
		Help: "First attempts dropped because the driver was further behind the schedule than the lag bound."})
	refused := prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_refused_total",
		Help: "Attempts (first and retry) refused because max_in_flight attempts and tracers were in flight."})
	tracerRefused := prometheus.NewCounter(prometheus.CounterOpts{Name: "trigger_tracers_refused_total",
		Help: "Wait tracers not sent because max_in_flight attempts and tracers were in flight (or half of them were tracers)."})
	inflight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "trigger_in_flight",
		Help: "Attempts in flight (tracers excluded)."}, inFlight)
	pend := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "trigger_pending_requests",
		Help: "Logical requests started and not yet ended (in flight or waiting for a retry)."}, pending)
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "trigger_tracer_wait_seconds",
		Help:    "Latency of wait tracers the service answered (2xx, 3xx or 4xx other than 429): the queue wait seen by a patient client.",
		Buckets: prometheus.ExponentialBucketsRange(0.001, 120, 18)})
	lag := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "trigger_dispatch_lag_seconds",
		Help:    "Dispatch lag of first attempts: actual minus planned send time.",
		Buckets: prometheus.ExponentialBucketsRange(0.00001, 2, 16)})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "trigger_attempt_duration_seconds",
		Help:    "Duration of completed attempts by kind, whatever their outcome.",
		Buckets: prometheus.ExponentialBucketsRange(0.0005, 120, 20)}, []string{"kind"})
	cs := []prometheus.Collector{planned, attempts, sent, requests, dropped, refused, tracerRefused, inflight, pend, wait, lag, duration}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return nil, fmt.Errorf("loadgen: metrics: %w", err)
		}
		if extra != nil {
			if err := extra.Register(c); err != nil {
				return nil, fmt.Errorf("loadgen: metrics: %w", err)
			}
		}
	}
	m.planned, m.dropped, m.refused, m.tracerRefused, m.wait, m.lag = planned, dropped, refused, tracerRefused, wait, lag
	for k := range numKinds {
		m.sent[k] = sent.WithLabelValues(kindNames[k])
		m.duration[k] = duration.WithLabelValues(kindNames[k])
		for o := range vocab.NumOutcomes {
			m.attempts[k][o] = attempts.WithLabelValues(kindNames[k], o.String())
		}
	}
	m.requests[0] = requests.WithLabelValues("succeeded")
	m.requests[1] = requests.WithLabelValues("failed")
	return m, nil
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
