package specimen

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// Balancer picks the pod queue of a new request in PerPod mode.
type Balancer string

// Balancers.
const (
	// RoundRobin cycles over the ready pods.
	RoundRobin Balancer = "round_robin"
	// LeastLoaded picks the ready pod with the least queued and in-service work.
	LeastLoaded Balancer = "least_loaded"
)

// Config is every setting of the specimen. Its zero value is a valid System A
// service: one pod at 100 requests/s, deterministic service time, FIFO queues,
// abandoned work served, no defences, no gateway, no autoscaler. Durations
// are wall-clock time.
type Config struct {
	// Pods is N, the pods ready at start (default 1).
	Pods int
	// PodRate is c, the requests per second one pod completes when busy
	// (default 100). The service capacity is C = c·N (docs/model.md,
	// "Symbols").
	PodRate float64
	// ServiceTime is the law of the service time (default Deterministic).
	ServiceTime vocab.ServiceTime
	// QueueMode is PerPod (default) or Shared.
	QueueMode vocab.Queue
	// Balancer picks a pod in PerPod mode (default RoundRobin).
	Balancer Balancer
	// MaxQueue is the hard maximum of requests waiting in the whole service
	// (pod queues and the limit's waiting room together); overflow is
	// refused with 503, reason queue_full (default 100,000).
	MaxQueue int
	// Seed seeds the exponential service times (0 is a valid seed).
	Seed uint64

	// AdmissionBound is b: admit a request only if its queue then holds at
	// most b seconds of that queue's current capacity of work; refused
	// requests get 503 with Retry-After and cost no service time
	// (docs/model.md, "Autoscalers, ceilings and admission"). Zero disables
	// it.
	AdmissionBound time.Duration
	// RetryAfter is the Retry-After sent with admission refusals, rounded up
	// to whole seconds, at least 1 (default 1 s).
	RetryAfter time.Duration
	// DeadlinePropagation drops, before serving it, a request whose
	// X-Deadline-Ms (milliseconds the client will still wait, counted from
	// arrival) has passed: reason deadline, no service time.
	DeadlinePropagation bool
	// CancelOnDisconnect removes a request from its queue, or stops serving
	// it, as soon as its client has gone: reason disconnect.
	CancelOnDisconnect bool
	// Discipline is FIFO (default), LIFO or AdaptiveLIFO.
	Discipline vocab.Discipline
	// CoDel drops requests that waited too long before service (reason
	// codel): CoDelInterval normally, CoDelTarget once the queue has not been
	// empty for CoDelInterval (the standing-queue test of CoDel).
	CoDel bool
	// CoDelTarget is the longest wait under a standing queue (default 5 ms).
	CoDelTarget time.Duration
	// CoDelInterval is the longest wait otherwise, and the length of
	// non-emptiness that marks a standing queue (default 100 ms).
	CoDelInterval time.Duration
	// Limit is the active-slot limit: the most requests inside the pods
	// (queued at a pod or in service) at once; zero disables it.
	Limit int
	// LimitQueue is the most requests waiting for a slot; more are refused
	// at once with LimitStatus, reason limit (default 0: no waiting room).
	LimitQueue int
	// LimitStatus is the HTTP status of a limit refusal, 429 or 503
	// (default 503).
	LimitStatus int

	// GRPCAddr is the address, HOST:PORT, of a second listener that serves
	// the same queue model over gRPC (method specimen.Work/Do, see
	// grpcproto.go); empty (the default): none. New does not listen:
	// StartLoopback (a loopback address; port 0 picks a free one) and the
	// command (-grpc-addr) do.
	GRPCAddr string
	// GRPCHonourDeadlines drops, before serving it, a gRPC call whose
	// deadline (its grpc-timeout, counted from arrival) has passed: reason
	// deadline, no service time; a call whose deadline has passed on
	// arrival is refused at the door. Off by default: the call's client has
	// gone (DEADLINE_EXCEEDED on its side) but its work stays queued, is
	// served and counted abandoned, as System A does. The HTTP listener's
	// deadlines are DeadlinePropagation's.
	GRPCHonourDeadlines bool

	// Gateway is the retrying layer in front of the pods.
	Gateway GatewayConfig
	// Autoscaler is the replica controller.
	Autoscaler AutoscalerConfig
}

// GatewayConfig is the in-process gateway in front of the pods: the hidden
// retry layer (docs/model.md, "Retry debt and amplification": layers
// multiply).
type GatewayConfig struct {
	// Enabled puts the gateway in front of the pods on "/work".
	Enabled bool
	// Retries is R_g, upstream retries after the first try (default 0).
	Retries int
	// TryTimeout is the gateway's own timeout of one upstream try
	// (default 300 ms). The specimen cannot know the clients' timeout; keep
	// (Retries+1)·TryTimeout below it to see every try of every attempt.
	TryTimeout time.Duration
	// RetryOn5xx also retries upstream 5xx answers (refusals); by default
	// only upstream timeouts are retried.
	RetryOn5xx bool
	// CancelOnClientGone stops retrying, and abandons the upstream try in
	// flight, when the gateway's own client disconnects. Off by default: many
	// real gateways do not notice, and keep making all Retries+1 tries.
	CancelOnClientGone bool
	// MaxInFlight bounds the client requests the gateway holds at once;
	// more are answered 503 at once (default 50,000).
	MaxInFlight int
}

// AutoscalerConfig is a horizontal autoscaler with a dead time
// (docs/model.md, "Autoscalers, ceilings and admission"). Defaults are
// time-compressed: seconds where a Kubernetes HPA has tens of seconds.
type AutoscalerConfig struct {
	// Enabled runs the control loop.
	Enabled bool
	// Signal is what it measures (default SignalCPU).
	Signal vocab.ScalerSignal
	// Target is u*, the target utilization in (0, 1] (default 0.5).
	Target float64
	// SyncPeriod is the time between decisions (default 1 s).
	SyncPeriod time.Duration
	// MetricWindow is the window of the rates it reads (default 5 s).
	MetricWindow time.Duration
	// Tolerance ignores recommendations within this fraction of the target
	// ratio, as the HPA does (default 0.1).
	Tolerance float64
	// ScaleUpFactor bounds one scale-up: desired ≤ max(ceil(current·factor),
	// current+1) (default 2).
	ScaleUpFactor float64
	// DeadTime is τ, from ordering a pod to its first served request
	// (default 5 s).
	DeadTime time.Duration
	// DownscaleStabilization is the window over which the largest
	// recommendation wins when scaling down (default 30 s).
	DownscaleStabilization time.Duration
	// MinReplicas is the floor (default Pods).
	MinReplicas int
	// MaxReplicas is the ceiling M (default 10·Pods).
	MaxReplicas int
}

// DefaultConfig returns the zero Config with every default filled in: a
// System A service of one pod at 100 requests/s.
func DefaultConfig() Config {
	var c Config
	c.applyDefaults()
	return c
}

// applyDefaults fills zero fields with their documented defaults.
func (c *Config) applyDefaults() {
	c.Pods = cmp.Or(c.Pods, 1)
	c.PodRate = cmp.Or(c.PodRate, 100)
	c.Balancer = cmp.Or(c.Balancer, RoundRobin)
	c.MaxQueue = cmp.Or(c.MaxQueue, 100_000)
	c.RetryAfter = cmp.Or(c.RetryAfter, time.Second)
	c.CoDelTarget = cmp.Or(c.CoDelTarget, 5*time.Millisecond)
	c.CoDelInterval = cmp.Or(c.CoDelInterval, 100*time.Millisecond)
	c.LimitStatus = cmp.Or(c.LimitStatus, 503)
	g := &c.Gateway
	g.TryTimeout = cmp.Or(g.TryTimeout, 300*time.Millisecond)
	g.MaxInFlight = cmp.Or(g.MaxInFlight, 50_000)
	a := &c.Autoscaler
	a.Signal = cmp.Or(a.Signal, vocab.SignalCPU)
	a.Target = cmp.Or(a.Target, 0.5)
	a.SyncPeriod = cmp.Or(a.SyncPeriod, time.Second)
	a.MetricWindow = cmp.Or(a.MetricWindow, 5*time.Second)
	a.Tolerance = cmp.Or(a.Tolerance, 0.1)
	a.ScaleUpFactor = cmp.Or(a.ScaleUpFactor, 2)
	a.DeadTime = cmp.Or(a.DeadTime, 5*time.Second)
	a.DownscaleStabilization = cmp.Or(a.DownscaleStabilization, 30*time.Second)
	a.MinReplicas = cmp.Or(a.MinReplicas, c.Pods)
	a.MaxReplicas = cmp.Or(a.MaxReplicas, 10*c.Pods)
}

// ErrConfig is wrapped by every validation error of New.
var ErrConfig = errors.New("specimen: invalid config")

// validate checks a Config whose defaults have been applied.
func (c *Config) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	switch {
	case c.Pods < 0:
		return bad("pods %d < 0", c.Pods)
	case !(c.PodRate > 0) || c.PodRate > 1e6:
		return bad("pod_rate %v not in (0, 1e6]", c.PodRate)
	case c.ServiceTime != vocab.ServiceDeterministic && c.ServiceTime != vocab.ServiceExponential:
		return bad("service_time %q: want %s or %s", c.ServiceTime, vocab.ServiceDeterministic, vocab.ServiceExponential)
	case c.QueueMode != vocab.QueuePerPod && c.QueueMode != vocab.QueueShared:
		return bad("queue %q: want %s", c.QueueMode, wantOneOf(vocab.QueueNames()))
	case c.Balancer != RoundRobin && c.Balancer != LeastLoaded:
		return bad("balancer %q: want round_robin or least_loaded", c.Balancer)
	case c.MaxQueue < 1:
		return bad("max_queue %d < 1", c.MaxQueue)
	case c.AdmissionBound < 0:
		return bad("admission_bound %v < 0", c.AdmissionBound)
	case c.RetryAfter < 0:
		return bad("retry_after %v < 0", c.RetryAfter)
	case c.Discipline != vocab.FIFO && c.Discipline != vocab.LIFO && c.Discipline != vocab.AdaptiveLIFO:
		return bad("discipline %q: want %s", c.Discipline, wantOneOf(vocab.DisciplineNames()))
	case c.CoDelTarget < 0 || c.CoDelInterval < 0:
		return bad("codel durations must be positive")
	case c.Limit < 0 || c.LimitQueue < 0:
		return bad("limit %d and limit_queue %d must be ≥ 0", c.Limit, c.LimitQueue)
	case c.LimitStatus != 429 && c.LimitStatus != 503:
		return bad("limit_status %d: want 429 or 503", c.LimitStatus)
	}
	if c.GRPCAddr != "" {
		if _, _, err := net.SplitHostPort(c.GRPCAddr); err != nil {
			return bad("grpc_addr %q: %v", c.GRPCAddr, err)
		}
	}
	if c.Pods > 10_000 {
		return bad("pods %d > 10000", c.Pods)
	}
	g := c.Gateway
	switch {
	case g.Retries < 0 || g.Retries > 100:
		return bad("gateway retries %d not in [0, 100]", g.Retries)
	case g.TryTimeout < 0:
		return bad("gateway try_timeout %v < 0", g.TryTimeout)
	case g.MaxInFlight < 1:
		return bad("gateway max_in_flight %d < 1", g.MaxInFlight)
	}
	a := c.Autoscaler
	if !a.Enabled {
		return nil
	}
	switch {
	case !a.Signal.Valid():
		return bad("autoscaler signal %q: want %s", a.Signal, wantOneOf(vocab.ScalerSignalNames()))
	case !(a.Target > 0 && a.Target <= 1):
		return bad("autoscaler target %v not in (0, 1]", a.Target)
	case a.SyncPeriod < time.Millisecond:
		return bad("autoscaler sync_period %v < 1ms", a.SyncPeriod)
	case a.MetricWindow < a.SyncPeriod && a.MetricWindow < time.Second:
		return bad("autoscaler metric_window %v too short", a.MetricWindow)
	case a.MetricWindow > time.Hour || a.DownscaleStabilization > time.Hour:
		return bad("autoscaler windows longer than 1h")
	case a.Tolerance < 0 || a.Tolerance >= 1:
		return bad("autoscaler tolerance %v not in [0, 1)", a.Tolerance)
	case a.ScaleUpFactor < 1:
		return bad("autoscaler scale_up_factor %v < 1", a.ScaleUpFactor)
	case a.DeadTime < 0 || a.DownscaleStabilization < 0:
		return bad("autoscaler durations must be ≥ 0")
	case a.MinReplicas < 0 || a.MaxReplicas < 1 || a.MinReplicas > a.MaxReplicas:
		return bad("autoscaler replicas min %d max %d", a.MinReplicas, a.MaxReplicas)
	case a.MaxReplicas > 10_000:
		return bad("autoscaler max_replicas %d > 10000", a.MaxReplicas)
	case c.Pods < a.MinReplicas || c.Pods > a.MaxReplicas:
		return bad("pods %d outside [min_replicas %d, max_replicas %d]", c.Pods, a.MinReplicas, a.MaxReplicas)
	}
	return nil
}

// wantOneOf renders names as "a, b or c".
func wantOneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
