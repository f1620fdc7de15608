package specimen

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// register exposes the counters under the names docs/design.md sets out
// ("Wire headers and metric names"). The counters are the atomics behind
// Stats, read at scrape time, so /metrics costs the load path nothing.
func (s *Server) register(wait prometheus.Histogram) {
	counter := func(a *atomic.Uint64, name, help string, labels prometheus.Labels) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return float64(a.Load()) })
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	const (
		ingressHelp  = "Attempts arriving at the pods (after the gateway), by kind: first, retry, tracer."
		servedHelp   = "Requests served, by result: answered (client still there) or abandoned (retry debt)."
		rejectedHelp = "Requests refused without service time, by reason."
	)
	cs := []prometheus.Collector{wait}
	for k := Kind(0); k < numKinds; k++ {
		cs = append(cs, counter(&s.c.ingress[k], "specimen_ingress_total", ingressHelp, prometheus.Labels{"kind": k.String()}))
	}
	cs = append(cs,
		counter(&s.c.answered, "specimen_served_total", servedHelp, prometheus.Labels{"result": "answered"}),
		counter(&s.c.abandoned, "specimen_served_total", servedHelp, prometheus.Labels{"result": "abandoned"}),
	)
	for i, r := range reasons {
		cs = append(cs, counter(&s.c.rejected[i], "specimen_rejected_total", rejectedHelp, prometheus.Labels{"reason": r}))
	}
	cs = append(cs,
		gauge("specimen_queue_depth", "Requests waiting in every queue of the service, the limit's waiting room included.",
			func() float64 { return float64(s.svc.queued.Load()) }),
		gauge("specimen_queue_wait_estimate_seconds", "Backlog divided by current capacity, seconds: the model's w(t), the wait of a new FIFO arrival.",
			s.svc.waitEstimate),
		gauge("specimen_busy_ratio", "Busy fraction of the ready pods over the last second, from their virtual clocks.",
			s.busy.Load),
		gauge("specimen_pods_ready", "Pods serving requests.",
			func() float64 { return float64(s.svc.readyCount.Load()) }),
		gauge("specimen_pods_desired", "Pods ordered, ready or in their dead time.",
			func() float64 { return float64(s.svc.desired.Load()) }),
		gauge("specimen_capacity_per_second", "Current capacity C(t) = c·ready pods, requests per second.",
			s.svc.capacity),
	)
	if s.gw != nil {
		for i, o := range gatewayOutcomes {
			cs = append(cs, counter(&s.c.gwRequests[i], "specimen_gateway_requests_total",
				"Client requests at the gateway, by outcome.", prometheus.Labels{"outcome": o}))
		}
		cs = append(cs, counter(&s.c.gwUpstream, "specimen_gateway_upstream_attempts_total",
			"Upstream tries the gateway sent to the pods, retries included.", nil))
	}
	s.reg.MustRegister(cs...)
}
