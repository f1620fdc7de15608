package scenarios

import (
	"time"

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
