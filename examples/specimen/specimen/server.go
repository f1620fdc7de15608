// Package specimen is a staging-service specimen whose overload behaviour is
// configurable, so that each mechanism of docs/model.md can be produced on
// purpose: a service that keeps serving abandoned work (System A, the
// default), one that defends itself (admission bound, deadline
// propagation, cancellation, LIFO/CoDel, an active-slot limit), a hidden
// retrying gateway, and an autoscaler with a dead time. Capacity is
// modelled by waiting, so a small machine models any rate exactly.
//
// Endpoints: "/work" (the service, through the gateway when it is enabled),
// "/metrics" (Prometheus, names specimen_*), "/healthz" (cheap, lock-free).
package specimen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server is one specimen: its pods, gateway, autoscaler and HTTP handlers.
// New starts the pods and the control loop; Close (or the end of Serve)
// stops every goroutine it started.
type Server struct {
	cfg     Config
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	c       counters
	svc     *service
	gw      *gateway // nil without a gateway
	reg     *prometheus.Registry
	busy    atomicFloat // specimen_busy_ratio, set by the control loop
	handler http.Handler

	closeOnce sync.Once
}

// New validates cfg (zero fields take their defaults, see Config), starts
// the pods and the control loop (sampling, autoscaler), and returns the
// server. Call Close, or Serve until its context ends, to stop them.
func New(cfg Config) (*Server, error) {
	cfg.applyDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, ctx: ctx, cancel: cancel, reg: prometheus.NewRegistry()}
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "specimen_queue_wait_seconds",
		Help:    "Time from arrival at the service to the start of service, seconds.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 25, 50, 100, 250},
	})
	s.svc = newService(ctx, &s.wg, cfg, &s.c, wait)
	if cfg.Gateway.Enabled {
		s.gw = &gateway{cfg: cfg.Gateway, svc: s.svc}
	}
	s.register(wait)
	mux := http.NewServeMux()
	mux.HandleFunc("/work", s.serveWork)
	mux.Handle("/metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", s.serveHealth)
	mux.HandleFunc("/admin/capacity", s.serveCapacity)
	s.handler = mux
	ctl := newControl(s)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctl.run(ctx)
	}()
	return s, nil
}

// Config returns the configuration in force, defaults applied.
func (s *Server) Config() Config { return s.cfg }

// Handler returns the HTTP handler: "/work", "/metrics", "/healthz".
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the Prometheus registry of the specimen_* metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Close stops the pods, the gateway's waits and the control loop, and
// waits for them. Requests still queued are answered 503. Idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
	})
	return nil
}

// Serve serves HTTP/1.1 and h2c on ln until ctx is done, then shuts the HTTP server
// down (at most 2 s for requests in flight) and calls Close. It returns nil
// after a shutdown through ctx, or the error that stopped serving.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// HTTP/1.1, and unencrypted HTTP/2 with prior knowledge (h2c) for
	// clients that multiplex: a timed-out attempt is then a stream reset,
	// which the handler sees as its client gone, like a closed connection.
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	hs := &http.Server{
		Handler:           s.handler,
		Protocols:         &protos,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.cancel() // queued requests are answered 503 at once
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil {
		_ = hs.Close()
	}
	if err == nil {
		err = <-errc
	}
	_ = s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("specimen: serve: %w", err)
	}
	return nil
}

// serveHealth answers without touching any queue or lock of the load path.
func (s *Server) serveHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if s.svc.readyCount.Load() == 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "no pod ready\n")
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// MinCapacityFactor is the smallest share of its capacity the specimen
// can be set to (SetCapacityFactor).
const MinCapacityFactor = 0.01

// SetCapacityFactor sets every pod's rate to factor × PodRate, from the
// next request each serves: a capacity fault without root or a cluster
// (factor 1 puts the capacity back). It is clamped to [MinCapacityFactor, 1].
func (s *Server) SetCapacityFactor(factor float64) {
	if math.IsNaN(factor) {
		return
	}
	s.svc.rateFactor.Store(math.Float64bits(min(max(factor, MinCapacityFactor), 1)))
}

// serveCapacity is "/admin/capacity": POST ?factor=F sets the pods' rate
// to F × PodRate (SetCapacityFactor); GET answers the factor. It is the
// specimen's fault injection for capacity triggers.
func (s *Server) serveCapacity(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		f, err := strconv.ParseFloat(r.URL.Query().Get("factor"), 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f > 1 {
			http.Error(w, "want ?factor=F with 0 < F ≤ 1", http.StatusBadRequest)
			return
		}
		s.SetCapacityFactor(f)
	case http.MethodGet:
	default:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
		return
	}
	fmt.Fprintf(w, "%g\n", s.svc.factor())
}

// Costs a "/work?cost=F" request may ask for, in units of 1/c.
const (
	minCost = 0.01
	maxCost = 100
)

// costOf is the cost a request's query asks for (cost=F, F times the
// service time 1/c of a plain request), within [minCost, maxCost]; 1 when
// it asks for none or for no number. Two routes of different cost are
// "/work?cost=3" and "/work": the tests' mix of requests of unequal cost.
// The wait estimate (specimen_queue_wait_estimate_seconds) still counts
// every queued request at cost 1, and the gateway serves every request
// at cost 1.
func costOf(rawQuery string) float64 {
	if !strings.Contains(rawQuery, "cost=") {
		return 1
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 1
	}
	f, err := strconv.ParseFloat(q.Get("cost"), 64)
	if err != nil || math.IsNaN(f) {
		return 1
	}
	return min(max(f, minCost), maxCost)
}

// serveWork is "/work": through the gateway when it is on, else straight to
// the pods. The response is 200 "ok" when served in time.
func (s *Server) serveWork(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	var deadline time.Time
	if s.cfg.DeadlinePropagation {
		deadline = deadlineOf(r.Header, now)
	}
	res, ok := s.work(r.Context().Done(), r.Header.Get(HeaderAttempt), r.Header.Get(HeaderGatewayAttempt),
		now, deadline, s.cfg.DeadlinePropagation, costOf(r.URL.RawQuery))
	if !ok {
		return // the client has gone: nobody to answer
	}
	s.write(w, res)
}

// work runs one request of the queue model, whatever listener it came
// from (HTTP "/work", gRPC specimen.Work/Do): through the gateway when it
// is on, else straight to the pods. clientGone is closed when the client
// gives up; attempt and gatewayAttempt are the X-Attempt and
// X-Gateway-Attempt values ("" when absent); deadline is the client's
// deadline when the listener honours deadlines (zero otherwise), and
// propagate says it does (the gateway then sends its tries a deadline
// too); cost is the request's service time in units of 1/c. ok is false
// when the client left before its result (System A serves it anyway, and
// counts it abandoned): there is nobody to answer.
func (s *Server) work(clientGone <-chan struct{}, attempt, gatewayAttempt string, now, deadline time.Time,
	propagate bool, cost float64) (res result, ok bool) {
	cancelable := s.cfg.CancelOnDisconnect
	if s.gw != nil {
		var outcome int
		res, outcome = s.gw.do(s.ctx, clientGone, attempt, deadline, propagate, cancelable)
		s.c.gwRequests[outcome].Add(1)
		return res, true
	}
	it := newItem(ClassifyAttempt(attempt, gatewayAttempt), now, cancelable)
	it.deadline = deadline
	it.cost = cost
	if ref := s.svc.submit(it); ref != nil {
		return *ref, true
	}
	select {
	case res = <-it.done:
		return res, true
	case <-clientGone:
		s.svc.clientGone(it) // System A: it stays queued and is served anyway
		return result{}, false
	case <-s.ctx.Done():
		return result{status: 503, reason: "shutdown"}, true
	}
}

func (s *Server) write(w http.ResponseWriter, res result) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if res.status == 200 {
		_, _ = io.WriteString(w, "ok\n")
		return
	}
	h.Set(HeaderReason, res.reason)
	if res.reason == reasonAdmission {
		h.Set("Retry-After", strconv.Itoa(retryAfterSeconds(s.cfg.RetryAfter)))
	}
	w.WriteHeader(res.status)
	_, _ = io.WriteString(w, res.reason+"\n")
}

// retryAfterSeconds rounds d up to whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	n := int((d + time.Second - 1) / time.Second)
	if n < 1 {
		n = 1
	}
	return n
}

// Stats is a snapshot of cumulative counters, for tests and the demo.
type Stats struct {
	// Ingress counts attempts arriving at the pods by kind (after the gateway).
	IngressFirst, IngressRetry, IngressTracer uint64
	// Answered counts requests served while their client was still there.
	Answered uint64
	// Abandoned counts requests served after their client had gone: retry debt.
	Abandoned uint64
	// Rejected counts refusals by reason: admission, deadline, disconnect,
	// codel, limit, queue_full (every reason present, zero or not).
	Rejected map[string]uint64
	// QueueDepth is the number of requests waiting now (waiting room included).
	QueueDepth int64
	// InService is the number of requests being served now.
	InService int64
	// PodsReady and PodsDesired are the replica counts now.
	PodsReady, PodsDesired int64
	// BusySeconds is the pods' total busy time, seconds (virtual clocks).
	BusySeconds float64
	// MaxQueueWait is the longest wait from arrival at the service to the
	// start of service (virtual clock) of any request served so far.
	MaxQueueWait time.Duration
	// GatewayRequests counts client requests at the gateway by outcome;
	// GatewayUpstream counts its upstream tries.
	GatewayRequests map[string]uint64
	GatewayUpstream uint64
}

// Ingress returns every attempt that arrived at the pods.
func (st Stats) Ingress() uint64 { return st.IngressFirst + st.IngressRetry + st.IngressTracer }

// Stats returns the counters now.
func (s *Server) Stats() Stats {
	st := Stats{
		IngressFirst:    s.c.ingress[KindFirst].Load(),
		IngressRetry:    s.c.ingress[KindRetry].Load(),
		IngressTracer:   s.c.ingress[KindTracer].Load(),
		Answered:        s.c.answered.Load(),
		Abandoned:       s.c.abandoned.Load(),
		Rejected:        make(map[string]uint64, len(reasons)),
		QueueDepth:      s.svc.queued.Load(),
		InService:       s.svc.inService.Load(),
		PodsReady:       s.svc.readyCount.Load(),
		PodsDesired:     s.svc.desired.Load(),
		BusySeconds:     time.Duration(s.c.busyNanos.Load()).Seconds(),
		MaxQueueWait:    time.Duration(s.c.maxWait.Load()),
		GatewayRequests: make(map[string]uint64, numGatewayOutcomes),
		GatewayUpstream: s.c.gwUpstream.Load(),
	}
	for i, r := range reasons {
		st.Rejected[r] = s.c.rejected[i].Load()
	}
	for i, o := range gatewayOutcomes {
		st.GatewayRequests[o] = s.c.gwRequests[i].Load()
	}
	return st
}
