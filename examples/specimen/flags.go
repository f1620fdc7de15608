package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/vocab"
)

// flagValues holds one flag per Config field; apply copies those set.
type flagValues struct {
	pods                                              *int
	podRate                                           *float64
	serviceTime, queue, balancer, discipline          *string
	maxQueue, limit, limitQueue, limitStatus          *int
	seed                                              *uint64
	admission, retryAfter, codelTarget, codelInterval *time.Duration
	deadlines, cancel, codel                          *bool
	grpcAddr                                          *string
	grpcDeadlines                                     *bool
	gateway, gwRetryOn5xx, gwCancel                   *bool
	gwRetries, gwMaxInFlight                          *int
	gwTryTimeout                                      *time.Duration
	scale                                             *bool
	signal                                            *string
	target, tolerance, upFactor                       *float64
	syncPeriod, metricWindow, deadTime, stabilization *time.Duration
	minReplicas, maxReplicas                          *int
}

func (f *flagValues) define(fs *flag.FlagSet, d specimen.Config) {
	f.pods = fs.Int("pods", d.Pods, "N: pods ready at start")
	f.podRate = fs.Float64("pod-rate", d.PodRate, "c: requests/s one pod completes")
	f.serviceTime = fs.String("service-time", d.ServiceTime.String(), choices(vocab.ServiceDeterministic.String(), vocab.ServiceExponential.String()))
	f.queue = fs.String("queue", d.QueueMode.String(), choices(vocab.QueueNames()...))
	f.balancer = fs.String("balancer", string(d.Balancer), "round_robin | least_loaded (per_pod queues)")
	f.maxQueue = fs.Int("max-queue", d.MaxQueue, "hard maximum of queued requests in the service")
	f.seed = fs.Uint64("seed", d.Seed, "seed of exponential service times")
	f.admission = fs.Duration("admission-bound", 0, "b: admit only if the queue then holds ≤ b of work (0 = off)")
	f.retryAfter = fs.Duration("retry-after", d.RetryAfter, "Retry-After of admission refusals (whole seconds ≥ 1)")
	f.deadlines = fs.Bool("deadline-propagation", false, "drop requests whose X-Deadline-Ms has passed before serving them")
	f.cancel = fs.Bool("cancel-on-disconnect", false, "drop or stop requests whose client has gone")
	f.discipline = fs.String("discipline", d.Discipline.String(), choices(vocab.DisciplineNames()...))
	f.codel = fs.Bool("codel", false, "CoDel-style dropping of requests that waited too long")
	f.codelTarget = fs.Duration("codel-target", d.CoDelTarget, "CoDel: longest wait under a standing queue")
	f.codelInterval = fs.Duration("codel-interval", d.CoDelInterval, "CoDel: longest wait otherwise; standing-queue test")
	f.limit = fs.Int("limit", 0, "active-slot limit: most requests inside the pods (0 = off)")
	f.limitQueue = fs.Int("limit-queue", 0, "most requests waiting for a slot")
	f.limitStatus = fs.Int("limit-status", d.LimitStatus, "status of limit refusals: 429 | 503")
	f.grpcAddr = fs.String("grpc-addr", "", "serve specimen.Work/Do over gRPC (h2c) on this address too (off when empty)")
	f.grpcDeadlines = fs.Bool("grpc-honour-deadlines", false, "drop gRPC calls whose deadline (grpc-timeout) has passed before serving them")
	f.gateway = fs.Bool("gateway", false, "put the retrying gateway in front of the pods")
	f.gwRetries = fs.Int("gateway-retries", 0, "R_g: gateway upstream retries on timeout")
	f.gwTryTimeout = fs.Duration("gateway-try-timeout", d.Gateway.TryTimeout, "gateway timeout of one upstream try")
	f.gwRetryOn5xx = fs.Bool("gateway-retry-5xx", false, "gateway also retries upstream refusals")
	f.gwCancel = fs.Bool("gateway-cancel-on-client-gone", false, "gateway stops retrying when its client leaves")
	f.gwMaxInFlight = fs.Int("gateway-max-in-flight", d.Gateway.MaxInFlight, "most client requests the gateway holds")
	a := d.Autoscaler
	f.scale = fs.Bool("autoscale", false, "run the autoscaler")
	f.signal = fs.String("scale-signal", string(a.Signal), choices(vocab.ScalerSignalNames()...))
	f.target = fs.Float64("scale-target", a.Target, "u*: target utilization")
	f.syncPeriod = fs.Duration("scale-sync", a.SyncPeriod, "time between decisions")
	f.metricWindow = fs.Duration("scale-window", a.MetricWindow, "window of the rates read")
	f.tolerance = fs.Float64("scale-tolerance", a.Tolerance, "ignored deviation of u/u* from 1")
	f.upFactor = fs.Float64("scale-up-factor", a.ScaleUpFactor, "most growth of one scale-up")
	f.deadTime = fs.Duration("scale-dead-time", a.DeadTime, "τ: from ordering a pod to its first served request")
	f.stabilization = fs.Duration("scale-down-stabilization", a.DownscaleStabilization, "downscale stabilization window")
	f.minReplicas = fs.Int("min-replicas", 0, "floor (default: pods)")
	f.maxReplicas = fs.Int("max-replicas", 0, "ceiling M (default: 10 × pods)")
}

// choices renders the names a flag takes as "a | b | c".
func choices(names ...string) string { return strings.Join(names, " | ") }

// apply copies the flags named in set onto c; it fails on the first name
// that does not parse.
func (f *flagValues) apply(c *specimen.Config, set map[string]bool) error {
	cp := func(name string, fn func()) {
		if set[name] {
			fn()
		}
	}
	var err error
	parse := func(name string, fn func() error) {
		if set[name] && err == nil {
			if e := fn(); e != nil {
				err = fmt.Errorf("specimen: -%s: %w", name, e)
			}
		}
	}
	cp("pods", func() { c.Pods = *f.pods })
	cp("pod-rate", func() { c.PodRate = *f.podRate })
	parse("service-time", func() (e error) { c.ServiceTime, e = vocab.ParseServiceTime(*f.serviceTime); return e })
	parse("queue", func() (e error) { c.QueueMode, e = vocab.ParseQueue(*f.queue); return e })
	cp("balancer", func() { c.Balancer = specimen.Balancer(*f.balancer) })
	cp("max-queue", func() { c.MaxQueue = *f.maxQueue })
	cp("seed", func() { c.Seed = *f.seed })
	cp("admission-bound", func() { c.AdmissionBound = *f.admission })
	cp("retry-after", func() { c.RetryAfter = *f.retryAfter })
	cp("deadline-propagation", func() { c.DeadlinePropagation = *f.deadlines })
	cp("cancel-on-disconnect", func() { c.CancelOnDisconnect = *f.cancel })
	parse("discipline", func() (e error) { c.Discipline, e = vocab.ParseDiscipline(*f.discipline); return e })
	cp("codel", func() { c.CoDel = *f.codel })
	cp("codel-target", func() { c.CoDelTarget = *f.codelTarget })
	cp("codel-interval", func() { c.CoDelInterval = *f.codelInterval })
	cp("limit", func() { c.Limit = *f.limit })
	cp("limit-queue", func() { c.LimitQueue = *f.limitQueue })
	cp("limit-status", func() { c.LimitStatus = *f.limitStatus })
	cp("grpc-addr", func() { c.GRPCAddr = *f.grpcAddr })
	cp("grpc-honour-deadlines", func() { c.GRPCHonourDeadlines = *f.grpcDeadlines })
	g := &c.Gateway
	cp("gateway", func() { g.Enabled = *f.gateway })
	cp("gateway-retries", func() { g.Retries = *f.gwRetries })
	cp("gateway-try-timeout", func() { g.TryTimeout = *f.gwTryTimeout })
	cp("gateway-retry-5xx", func() { g.RetryOn5xx = *f.gwRetryOn5xx })
	cp("gateway-cancel-on-client-gone", func() { g.CancelOnClientGone = *f.gwCancel })
	cp("gateway-max-in-flight", func() { g.MaxInFlight = *f.gwMaxInFlight })
	a := &c.Autoscaler
	cp("autoscale", func() { a.Enabled = *f.scale })
	cp("scale-signal", func() { a.Signal = vocab.ScalerSignal(*f.signal) })
	cp("scale-target", func() { a.Target = *f.target })
	cp("scale-sync", func() { a.SyncPeriod = *f.syncPeriod })
	cp("scale-window", func() { a.MetricWindow = *f.metricWindow })
	cp("scale-tolerance", func() { a.Tolerance = *f.tolerance })
	cp("scale-up-factor", func() { a.ScaleUpFactor = *f.upFactor })
	cp("scale-dead-time", func() { a.DeadTime = *f.deadTime })
	cp("scale-down-stabilization", func() { a.DownscaleStabilization = *f.stabilization })
	cp("min-replicas", func() { a.MinReplicas = *f.minReplicas })
	cp("max-replicas", func() { a.MaxReplicas = *f.maxReplicas })
	return err
}
