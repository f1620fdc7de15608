package scenarios

import (
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// Service is what the scenario author believes about the service (block
// "service"). Give either Capacity or Pods and PodRate.
type Service struct {
	// Capacity is C, requests per second when busy; when the scenario gives
	// pods and pod_rate instead, Capacity is their product.
	Capacity float64
	Pods     int     // N, replicas at baseline; 0 when not given
	PodRate  float64 // c, requests per second of one pod; 0 when not given
	// AdmissionBound is b: the most work the queue may hold, in seconds of
	// current capacity; zero means no bound.
	AdmissionBound time.Duration
	// MaxReplicas is the replica ceiling M; zero means unknown.
	MaxReplicas int
	// ScalabilityPeak is N_max, the replica count past which throughput
	// stops growing; zero means unknown.
	ScalabilityPeak int
	Autoscaler      *Autoscaler // nil when the block is absent
	// LatencyLaw is how the service's latency grows with the requests in
	// flight, when the author knows it: vocab.LawQueue (the default, a
	// FIFO queue behind servers or a floor) or vocab.LawConcurrency
	// (latency that grows with every request in flight, no queue).
	// LatencyLawGiven says the scenario named it; otherwise plan assumes
	// the queue and a run fits the law from its data.
	LatencyLaw      vocab.LatencyLaw
	LatencyLawGiven bool
	// LatencyFloor is L₀, the latency of a request alone (downstream
	// calls, a fixed amount of work); zero when not given.
	LatencyFloor time.Duration

	// The attributes below shape only the request-level model
	// (`trigger simulate --model request`); the defaults are the specimen's.

	// Workers is the requests one pod serves at a time (its servers); the
	// model has pods × workers servers, each at pod_rate/workers. Default 1.
	Workers int
	// ServiceTime is the law of one request's service time:
	// vocab.ServiceDeterministic (default), vocab.ServiceExponential or
	// vocab.ServiceLognormal.
	ServiceTime vocab.ServiceTime
	// ServiceCV is the coefficient of variation of lognormal service times; default 1.
	ServiceCV float64
	// Queue is vocab.QueuePerPod (default: a FIFO per pod behind round
	// robin) or vocab.QueueShared (one FIFO in front of every server).
	Queue vocab.Queue
	// DeadlinePropagation says the service drops a request whose client's
	// deadline passed before it reached a server, instead of serving it.
	DeadlinePropagation bool
}

// Autoscaler describes the service's autoscaler (block "service.autoscaler").
type Autoscaler struct {
	// Signal is what the scaler measures: vocab.SignalCPU,
	// vocab.SignalIngress, vocab.SignalFirstAttempts or vocab.SignalPaired.
	Signal   vocab.ScalerSignal
	Target   float64       // u*, target utilization in (0, 1]
	DeadTime time.Duration // τ, from ordering a pod to its first served request
}

// Defaults of the service block's attributes; the values are vocab's.
const (
	// DefaultWorkers is service.workers, requests one pod serves at a time.
	DefaultWorkers = vocab.DefaultWorkers
	// DefaultServiceTime is service.service_time.
	DefaultServiceTime = vocab.DefaultServiceTime
	// DefaultServiceCV is service.service_cv, dimensionless.
	DefaultServiceCV = vocab.DefaultServiceCV
	// DefaultQueue is service.queue.
	DefaultQueue = vocab.DefaultQueue
)

// The names of service.service_time, service.queue and the autoscaler's
// signal, vocab's, in the order they are listed to users.
var (
	serviceTimes  = vocab.ServiceTimeNames()
	queueKinds    = vocab.QueueNames()
	scalerSignals = vocab.ScalerSignalNames()
	latencyLaws   = vocab.LatencyLawNames()
)

// The schemas of the service block and of its autoscaler sub-block:
// attribute names are the snake_case of Service's and Autoscaler's fields.
var (
	serviceSchema = &hcl.BodySchema{
		Attributes: attrs("capacity", "pods", "pod_rate", "admission_bound", "max_replicas", "scalability_peak",
			"workers", "service_time", "service_cv", "queue", "deadline_propagation", "latency_law", "latency_floor"),
		Blocks: blocks("autoscaler"),
	}
	autoscalerSchema = &hcl.BodySchema{Attributes: attrs("signal", "target", "dead_time")}
)

// decodeService decodes the service block and its autoscaler
// sub-block; the capacity from pods × pod_rate is the validator's.
func (d *decoder) decodeService(blk *hcl.Block) Service {
	b := d.open("service", "service", blk.Body, blk.DefRange, schemaOf("service"))
	s := Service{
		Capacity:        b.num("capacity", 0),
		Pods:            b.integer("pods", 0),
		PodRate:         b.num("pod_rate", 0),
		AdmissionBound:  b.duration("admission_bound", 0),
		MaxReplicas:     b.integer("max_replicas", 0),
		ScalabilityPeak: b.integer("scalability_peak", 0),

		Workers:             b.integer("workers", DefaultWorkers),
		ServiceTime:         enum(b, "service_time", "service-time law", DefaultServiceTime, serviceTimes, vocab.ParseServiceTime),
		ServiceCV:           b.num("service_cv", DefaultServiceCV),
		Queue:               enum(b, "queue", "queue discipline", DefaultQueue, queueKinds, vocab.ParseQueue),
		DeadlinePropagation: b.boolean("deadline_propagation", false),

		LatencyLaw:   enum(b, "latency_law", "latency law", vocab.DefaultLatencyLaw, latencyLaws, vocab.ParseLatencyLaw),
		LatencyFloor: b.duration("latency_floor", 0),
	}
	if ab := b.one("autoscaler", false, ""); ab != nil {
		a := d.open("autoscaler", "service.autoscaler", ab.Body, ab.DefRange, schemaOf("service.autoscaler"))
		s.Autoscaler = &Autoscaler{
			Signal:   enum(a, "signal", "autoscaler signal", "", scalerSignals, vocab.ParseScalerSignal),
			Target:   a.num("target", 0),
			DeadTime: a.duration("dead_time", 0),
		}
		a.require("signal", `what the scaler measures: one of `+quoteList(scalerSignals)+`.`)
		a.require("target", `u*, the target utilization in (0, 1], e.g. target = 0.5.`)
		a.require("dead_time", `τ, from ordering a pod to its first served request, e.g. dead_time = "60s".`)
	}
	return s
}

// service checks the service block and its autoscaler sub-block, and
// completes capacity, pods and pod_rate from the two given.
func (v *validator) service() {
	if !v.present("service") {
		return
	}
	s := &v.s.Service
	src := v.d.src
	hasC, hasN, hasc := src.has("service.capacity"), src.has("service.pods"), src.has("service.pod_rate")
	okC, okN, okc := src.ok("service.capacity"), src.ok("service.pods"), src.ok("service.pod_rate")

	v.errorf(hasC && s.Capacity <= 0, "service.capacity", "Value out of range",
		"capacity is C, the requests per second the service finishes when busy, and must be greater than zero. Got %g.", s.Capacity)
	v.errorf(hasC && s.Capacity > MaxCapacity, "service.capacity", "Value out of range",
		"capacity is C, the requests per second the service finishes when busy, and may be at most 1e7 (ten million per second). Got %g.", s.Capacity)
	v.errorf(hasN && s.Pods <= 0, "service.pods", "Value out of range",
		"pods is N, the replicas at baseline, and must be at least 1. Got %d.", s.Pods)
	v.errorf(hasN && s.Pods > MaxReplicas, "service.pods", "Value out of range",
		"pods is N, the replicas at baseline, and may be at most %d. Got %d.", MaxReplicas, s.Pods)
	v.errorf(hasc && s.PodRate <= 0, "service.pod_rate", "Value out of range",
		"pod_rate is c, the requests per second one pod finishes, and must be greater than zero. Got %g.", s.PodRate)
	v.errorf(hasc && s.PodRate > MaxCapacity, "service.pod_rate", "Value out of range",
		"pod_rate is c, the requests per second one pod finishes, and may be at most 1e7 (ten million per second). Got %g.", s.PodRate)
	validC := hasC && okC && s.Capacity > 0 && s.Capacity <= MaxCapacity
	validN := hasN && okN && s.Pods > 0 && s.Pods <= MaxReplicas
	validc := hasc && okc && s.PodRate > 0 && s.PodRate <= MaxCapacity
	cMix, costed := MixCapacity(v.s.Target.Requests)

	switch {
	case costed:
		// The requests' costs give C (docs/model.md, "A mix of requests").
		for _, name := range []string{"capacity", "pod_rate"} {
			v.errorf(src.has("service."+name), "service."+name, "Capacity given twice",
				"The requests' costs give the mix's capacity, C = 1/Σ wᵢ·sᵢ = %.4g/s; drop %s (pods may stay: pod_rate is then C/pods).", cMix, name)
		}
		v.errorf(cMix > MaxCapacity, "target", "Value out of range",
			"The requests' costs give C = 1/Σ wᵢ·sᵢ = %g/s; it may be at most 1e7 (ten million requests per second).", cMix)
		s.Capacity = cMix
		if validN {
			s.PodRate = cMix / float64(s.Pods)
		}
	case !hasC && !hasN && !hasc:
		v.errorf(okC && okN && okc, "service", "Missing service capacity",
			"Give the service's capacity: capacity = C in requests per second, pods = N and pod_rate = c (C = N × c), or a cost in each request block (C = 1/Σ wᵢ·sᵢ).")
	case !hasC && hasN != hasc:
		missing, given := "pod_rate", "service.pods"
		if hasc {
			missing, given = "pods", "service.pod_rate"
		}
		v.errorf(true, given, "Incomplete service capacity",
			"pods and pod_rate go together (C = pods × pod_rate): add %s, or give capacity instead.", missing)
	case !hasC && validN && validc:
		s.Capacity = float64(s.Pods) * s.PodRate
		v.errorf(s.Capacity > MaxCapacity, "service.pod_rate", "Value out of range",
			"capacity = pods × pod_rate = %d × %g = %g; it may be at most 1e7 (ten million requests per second).", s.Pods, s.PodRate, s.Capacity)
	case validC && validN && validc:
		product := float64(s.Pods) * s.PodRate
		v.errorf(math.Abs(s.Capacity-product) > 1e-9*math.Max(s.Capacity, product), "service.capacity", "Inconsistent capacity",
			"capacity = %g but pods × pod_rate = %d × %g = %g. Give capacity alone, pods and pod_rate alone, or values that agree.",
			s.Capacity, s.Pods, s.PodRate, product)
	case validC && validN && !hasc:
		s.PodRate = s.Capacity / float64(s.Pods)
	case validC && validc && !hasN:
		n := s.Capacity / s.PodRate
		if r := math.Round(n); math.Abs(n-r) <= 1e-9*n && r >= 1 && r <= math.MaxInt32 {
			s.Pods = int(r)
		} else {
			v.errorf(true, "service.capacity", "Inconsistent capacity",
				"capacity = %g is not a whole number of pods of pod_rate = %g (%g pods). Give pods as well, or drop pod_rate.", s.Capacity, s.PodRate, n)
		}
	}

	s.LatencyLawGiven = src.has("service.latency_law") || src.has("service.latency_floor")
	v.nonNegDur(s.LatencyFloor, "service.latency_floor", "latency_floor",
		"L₀, the latency of a request alone, before any queue (0: none)")
	v.errorf(s.LatencyFloor > 0 && v.s.Client.Timeout > 0 && s.LatencyFloor >= v.s.Client.Timeout, "service.latency_floor", "Value out of range",
		"latency_floor = %s is not below the client timeout %s: every request would time out with the service idle.", s.LatencyFloor, v.s.Client.Timeout)
	v.nonNegDur(s.AdmissionBound, "service.admission_bound", "admission_bound",
		"b, the most work the queue may hold in seconds of capacity (0: no bound)")
	v.errorf(s.MaxReplicas < 0 || s.MaxReplicas > MaxReplicas, "service.max_replicas", "Value out of range",
		"max_replicas is the replica ceiling M and must be from 0 (unknown) to %d. Got %d.", MaxReplicas, s.MaxReplicas)
	v.errorf(s.ScalabilityPeak < 0 || s.ScalabilityPeak > MaxReplicas, "service.scalability_peak", "Value out of range",
		"scalability_peak is N_max and must be from 0 (unknown) to %d. Got %d.", MaxReplicas, s.ScalabilityPeak)
	v.errorf(s.MaxReplicas > 0 && s.Pods > 0 && s.MaxReplicas < s.Pods, "service.max_replicas", "Ceiling below baseline",
		"max_replicas = %d is below pods = %d: the service could not even run its baseline replicas.", s.MaxReplicas, s.Pods)

	v.errorf(s.Workers < 1 || s.Workers > MaxReplicas, "service.workers", "Value out of range",
		"workers is the requests one pod serves at a time and must be at least 1 and at most %d. Got %d.", MaxReplicas, s.Workers)
	v.errorf(!(s.ServiceCV > 0) || s.ServiceCV > 100, "service.service_cv", "Value out of range",
		"service_cv is the coefficient of variation of lognormal service times and must be in (0, 100]. Got %g.", s.ServiceCV)
	v.warnf(src.has("service.service_cv") && s.ServiceCV > 0 && !src.unknown["service.service_time"] && s.ServiceTime != vocab.ServiceLognormal,
		"service.service_cv", "Unused service_cv",
		"service_cv applies to lognormal service times only; service_time is %q.", s.ServiceTime)

	if a := s.Autoscaler; a != nil && v.present("service.autoscaler") {
		const p = "service.autoscaler."
		if src.has(p + "target") {
			v.fraction(a.Target, true, p+"target", "target", "u*, the utilization the scaler aims for")
		}
		v.nonNegDur(a.DeadTime, p+"dead_time", "dead_time", "τ, from ordering a pod to its first served request")
	}
}
