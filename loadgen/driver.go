package loadgen

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Request is what every attempt sends.
type Request struct {
	// Name names the request in a mix (Second.Requests); Weight is its
	// share of first attempts relative to the mix's others (a single
	// request's 0 means 1).
	Name   string
	Weight float64
	Method string      // default GET
	URL    string      // http or https; grpc or grpcs for a gRPC call
	Header http.Header // sent with every attempt, plus X-Request-Id, X-Attempt, X-Deadline-Ms; "Host" sets the Host header; a gRPC call's metadata
	Body   []byte      // nil for none; a gRPC call's request message as protojson
	// GRPC makes the request a unary gRPC call (nil: HTTP).
	GRPC *GRPCCall
}

// Defaults of Config; those a scenario also fills in are vocab's.
const (
	DefaultMaxLag = time.Second // Config.MaxLag
	// MaxTracerRate is the highest Config.Tracers.Rate NewDriver accepts,
	// probes per second (100): tracers are probes, not load, and each one
	// waits up to its long timeout holding a slot.
	MaxTracerRate = float64(vocab.MaxTracerRate)
)

// Config configures a Driver.
type Config struct {
	// Request is the one request every logical request sends, unless Mix
	// is set: then each logical request draws one of Mix by weight, from
	// a source of Seed, and its retries resend it. Tracers send Mix's
	// first (or Request).
	Request Request
	Mix     []Request
	// Slots is the table of per-request values the markers in the
	// requests' url, headers and body stand for (vocab.Slot); nil means
	// vocab.FixedSlots (request.id, request.seq, random.uuid). Data is the
	// data sets its data columns draw rows from.
	Slots    []vocab.Slot
	Data     []vocab.DataSet
	Stages   []Stage        // first-attempt rate schedule
	Arrivals vocab.Arrivals // Poisson or Uniform
	Seed     uint64         // seeds the schedule and the jitter
	// Phase shifts uniform arrivals by a fraction of one arrival, in [0, 1):
	// the n-th is planned at Λ⁻¹(n−1+Phase) instead of Λ⁻¹(n−1). N drivers
	// sharing a rate with phases 0, 1/N, …, (N−1)/N together send exactly
	// one driver's uniform schedule instead of N arrivals at once. Ignored
	// for Poisson arrivals (a superposition of Poisson streams is one).
	Phase   float64
	Timeout time.Duration
	Retry   retry.Policy
	// MaxInFlight bounds concurrent attempts and tracers together (each
	// holds a connection: a file descriptor); a first attempt or retry due
	// while it is reached is refused and counted, a tracer is not sent and
	// counted (Second.TracerRefused). It also bounds the retries waiting
	// for their backoff. 0 means vocab.DefaultMaxInFlight. NewDriver lowers it
	// to what the open-file limit allows (see Bounds, Driver.MaxInFlight).
	MaxInFlight int
	Tracers     *vocab.Tracers // wait tracers; nil = none
	// OKStatus lists the HTTP statuses that are a success; empty means
	// 200–299. A response with a status not listed and below 400 (a
	// redirect, which the driver never follows, or a 2xx the clients do not
	// accept) is OutcomeOther: the exchange completed, but not as the
	// clients want, and it is no error status (4xx, 5xx) the service
	// chose. A listed status of 400 or more is OutcomeOK. Each must be a
	// status code, 100–599.
	OKStatus []int
	// MaxLag is the catch-up bound: a first attempt whose planned time is
	// more than MaxLag in the past when the dispatcher reaches it is dropped
	// and counted (k6's dropped_iterations); those within it are sent at
	// once. 0 means DefaultMaxLag (1 s): long enough to ride out a GC pause or
	// a descheduled process without losing arrivals, short enough that a
	// burst of catch-up is at most one second of demand.
	MaxLag time.Duration
	// TLS is the target's TLS setup for https:// (a CA to trust, a client
	// certificate); nil = Go's defaults. HTTP2 speaks HTTP/2 only
	// (TransportOptions.HTTP2). Both apply to the driver's own transport,
	// not to a Transport given here; NewDriver loads TLS's files.
	TLS   *tlsfiles.Files
	HTTP2 bool
	// Transport carries every HTTP attempt (a mix of gRPC calls ignores
	// it: it has its own pool of connections, grpc_path.go); nil means
	// NewLeanTransport(DefaultTransportOptions()) with TLS and HTTP2: the
	// lean HTTP/1.1 path for http:// targets and a tuned net/http Transport
	// (NewTransport) for https://. Set NewTransport(DefaultTransportOptions()) for net/http's
	// Transport everywhere (see the package doc, "Timeout storms", for the
	// difference measured).
	Transport  http.RoundTripper
	Registerer prometheus.Registerer // optional; where the trigger_* collectors are also registered
}

// Driver sends first attempts on an open-model schedule, retries them by a
// retry.Policy, sends wait tracers, and accounts for every attempt. A Driver
// runs once.
type Driver struct {
	cfg Config
	mix *mix // the requests logical requests draw from
	// valueSlots is Config.Slots; templates[i] is request i's texts split
	// at their markers, nil when it has none (perrequest.go).
	valueSlots []vocab.Slot
	templates  []*templates
	rt         http.RoundTripper
	// path sends the attempts: through rt as http.Requests, or, when rt
	// is a LeanTransport serving url on its lean path, as the request's
	// bytes plus their tracking headers (chooseAttemptPath).
	path    attemptPath
	retrier *retry.Retrier
	rec     *recorder
	met     *metrics
	rq      *retryQueue

	ran      atomic.Bool  // Run was called
	started  atomic.Bool  // start is set (published by this atomic)
	start    time.Time    // when Run started (monotonic)
	bounds   Bounds       // MaxInFlight as enforced
	slots    atomic.Int64 // attempts and tracers in flight (what MaxInFlight bounds)
	inFlight atomic.Int64 // attempts in flight (tracers excluded)
	tracing  atomic.Int64 // tracers in flight
	pending  atomic.Int64 // logical requests not ended
	idle     chan struct{}
	replanP  atomic.Pointer[replanReq]
	ownsRT   bool // rt was made by NewDriver (not given in Config)
	// schedEnd is the current schedule's end, nanoseconds since the start
	// (set by the dispatcher, read by the tracers).
	schedEnd atomic.Int64
	replanC  chan struct{}
	seq      atomic.Uint64
	idPrefix string
	attempts sync.WaitGroup // attempt and tracer goroutines
	sleeper  sleeper        // waits out the dispatcher's last stretch (chooseSleeper; timerSleeper on a fake clock)
}

type replanReq struct {
	at     time.Duration
	stages []Stage
}

// NewDriver validates cfg, fills its defaults and returns a driver.
func NewDriver(cfg Config) (*Driver, error) {
	reqs := cfg.Mix
	if len(reqs) == 0 {
		reqs = []Request{cfg.Request}
	}
	m, err := newMix(reqs, cfg.Seed)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		return nil, errors.New("loadgen: timeout must be positive")
	}
	if err := ValidateStages(cfg.Stages); err != nil {
		return nil, err
	}
	if err := cfg.Retry.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxInFlight < 0 || cfg.MaxLag < 0 {
		return nil, errors.New("loadgen: negative max in flight or max lag")
	}
	if !(cfg.Phase >= 0 && cfg.Phase < 1) {
		return nil, fmt.Errorf("loadgen: phase %g outside [0, 1)", cfg.Phase)
	}
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, vocab.DefaultMaxInFlight)
	cfg.MaxLag = cmp.Or(cfg.MaxLag, DefaultMaxLag)
	if t := cfg.Tracers; t != nil {
		tc := *t
		if tc.Rate < 0 || tc.Timeout < 0 {
			return nil, errors.New("loadgen: negative tracer rate or timeout")
		}
		tc.Rate = cmp.Or(tc.Rate, float64(vocab.DefaultTracerRate))
		tc.Timeout = cmp.Or(tc.Timeout, vocab.DefaultTracerTimeout)
		if tc.Rate > MaxTracerRate || math.IsNaN(tc.Rate) {
			return nil, fmt.Errorf("loadgen: tracer rate %g/s above the most allowed (%g/s)", tc.Rate, MaxTracerRate)
		}
		cfg.Tracers = &tc
	}
	for _, code := range cfg.OKStatus {
		if code < 100 || code > 599 {
			return nil, fmt.Errorf("loadgen: ok status %d is not an HTTP status code (100–599)", code)
		}
	}
	soft, _, _ := fdLimits() // a limit that could not be raised is still the limit
	bounds, err := inFlightBounds(cfg.MaxInFlight, soft)
	if err != nil {
		return nil, err
	}
	cfg.MaxInFlight = bounds.MaxInFlight
	cfg.Stages = append([]Stage(nil), cfg.Stages...)
	cfg.OKStatus = append([]int(nil), cfg.OKStatus...)
	d := &Driver{
		cfg:      cfg,
		bounds:   bounds,
		mix:      m,
		rt:       cfg.Transport,
		idle:     make(chan struct{}, 1),
		replanC:  make(chan struct{}, 1),
		idPrefix: fmt.Sprintf("%08x-", rand.Uint32()),
		sleeper:  chooseSleeper(),
	}
	if m.grpc {
		if err := d.newGRPC(); err != nil {
			return nil, err
		}
	} else if err := d.newHTTP(); err != nil {
		return nil, err
	}
	if err := d.splitTemplates(); err != nil {
		return nil, err
	}
	d.retrier = retry.NewRetrier(cfg.Retry, rand.New(rand.NewPCG(cfg.Seed, cfg.Seed+1)))
	d.rec = newRecorder(func() (int64, int64) { return d.pending.Load(), d.inFlight.Load() }, len(m.reqs))
	d.rq = newRetryQueue(cfg.MaxInFlight)
	d.met, err = newMetrics(
		func() float64 { return float64(d.inFlight.Load()) },
		func() float64 { return float64(d.pending.Load()) },
		cfg.Registerer)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// newGRPC sets up the gRPC path of a mix of gRPC calls: the target's TLS
// loaded, fixed messages encoded (one that does not encode fails here);
// Config.Transport is not used.
func (d *Driver) newGRPC() error {
	d.rt = nil // HTTP's: a gRPC mix has its own connections
	var tc *tls.Config
	if d.cfg.TLS != nil {
		var err error
		if tc, err = d.cfg.TLS.Load(); err != nil {
			return fmt.Errorf("loadgen: target %w", err)
		}
	}
	p, err := newGRPCPath(d, tc)
	if err != nil {
		return err
	}
	d.path = p
	return nil
}

// newHTTP sets up the HTTP path: the driver's transport, unless Config
// has one, and the attempt path on it.
func (d *Driver) newHTTP() error {
	cfg, m := d.cfg, d.mix
	if d.rt == nil {
		o := DefaultTransportOptions()
		o.HTTP2 = cfg.HTTP2
		if cfg.TLS != nil {
			tc, err := cfg.TLS.Load()
			if err != nil {
				return fmt.Errorf("loadgen: target %w", err)
			}
			o.TLS = tc
		}
		d.rt = NewLeanTransport(o)
		d.ownsRT = true
	}
	// A request that cannot be built fails here, whatever the transport,
	// not as every attempt's "other".
	var built []*http.Request
	for i := range m.reqs {
		req, err := d.newRequest(context.Background(), logical{req: uint8(i)}, 0, "")
		if err != nil {
			return fmt.Errorf("loadgen: request: %w", err)
		}
		built = append(built, req)
	}
	var err error
	d.path, err = chooseAttemptPath(d, built)
	return err
}

// Retrier returns the driver's retrier (shared by all its logical requests).
func (d *Driver) Retrier() *retry.Retrier { return d.retrier }

// now returns the time since Run started (0 before).
func (d *Driver) now() time.Duration {
	if !d.started.Load() {
		return 0
	}
	return time.Since(d.start)
}

// Elapsed returns the time since Run started (0 before it).
func (d *Driver) Elapsed() time.Duration { return d.now() }

// Run drives the schedule from now; returns when the schedule has ended and
// every logical request has finished (retries included), or when ctx is done
// (then in-flight attempts are cancelled, counted with outcome "other", their
// logical requests and queued retries counted as failed, and Run returns
// ctx's error). In-flight tracers are cancelled once the last logical request
// has ended. When Run returns, the last partial second is in the timeline.
func (d *Driver) Run(ctx context.Context) error {
	if !d.ran.CompareAndSwap(false, true) {
		return errors.New("loadgen: a driver runs once")
	}
	if g, ok := d.path.(*grpcPath); ok {
		if err := g.start(); err != nil {
			return err
		}
		defer g.stop() // after every attempt has ended (below)
	}
	d.start = time.Now()
	d.started.Store(true)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	tracerCtx, stopTracers := context.WithCancel(runCtx)
	defer stopTracers()
	stopBg := make(chan struct{})
	schedDone := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() { d.dispatch(runCtx); close(schedDone) })
	bg.Go(func() { d.rq.loop(runCtx, stopBg, d) })
	bg.Go(func() { d.tick(stopBg) })
	if d.cfg.Tracers != nil {
		bg.Go(func() { d.tracers(tracerCtx, schedDone) })
	}

	select {
	case <-schedDone:
	case <-ctx.Done():
	}
	for ctx.Err() == nil && d.pending.Load() > 0 {
		select {
		case <-d.idle:
		case <-ctx.Done():
		}
	}
	stopTracers()
	if ctx.Err() != nil {
		cancel()
	}
	<-schedDone
	close(stopBg)
	bg.Wait()
	d.attempts.Wait()
	d.rec.flush(d.now())
	if ci, ok := d.rt.(interface{ CloseIdleConnections() }); ok && d.ownsRT {
		ci.CloseIdleConnections() // a driver runs once: its connections go with it
	}
	return ctx.Err()
}

// Replan replaces the rest of the schedule, from the moment of the call, by
// stages (used by the runner to drop demand to zero when a service is
// trapped): first attempts planned from then on follow the new stages, whose
// times count from the call. A Replan after the schedule has ended has no
// effect; of several calls before the dispatcher reacts, the last wins.
func (d *Driver) Replan(stages []Stage) {
	d.replanP.Store(&replanReq{at: d.now(), stages: append([]Stage(nil), stages...)})
	select {
	case d.replanC <- struct{}{}:
	default:
	}
}

// Timeline returns a copy of every completed second so far; once Run has
// returned, every second of the run, the last (partial) one included, and
// nothing after it.
func (d *Driver) Timeline() []Second {
	if d.started.Load() {
		d.rec.roll(d.now())
	}
	return d.rec.timeline()
}

// TimelineSince returns a copy of the completed seconds from index n on
// (what a caller polling once a second has not seen yet), without copying
// the whole timeline each time.
func (d *Driver) TimelineSince(n int) []Second {
	if d.started.Load() {
		d.rec.roll(d.now())
	}
	return d.rec.since(n)
}

// Live returns the second in progress (partial counts) — for progress lines.
func (d *Driver) Live() Second { return d.rec.live(d.now()) }

// Totals returns the counts of the run so far and its whole-run summaries.
func (d *Driver) Totals() Totals { return d.rec.totals() }

// Handler serves the driver's trigger_* metrics in Prometheus exposition format.
func (d *Driver) Handler() http.Handler { return d.met.handler() }

// tick beats every beatEvery until stop is closed: it seals each second
// shortly after it ends, and shows the driver's own stalls (stall.go).
func (d *Driver) tick(stop <-chan struct{}) {
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	d.rec.beat(d.now())
	for {
		select {
		case <-t.C:
			d.rec.beat(d.now())
		case <-stop:
			return
		}
	}
}

// end ends a logical request.
func (d *Driver) end() {
	if d.pending.Add(-1) == 0 {
		select {
		case d.idle <- struct{}{}:
		default:
		}
	}
}
