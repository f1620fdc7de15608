package scenarios

import "time"

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
}

// Autoscaler describes the service's autoscaler (block "service.autoscaler").
type Autoscaler struct {
	// Signal is what the scaler measures: "cpu", "ingress",
	// "first_attempts" or "paired".
	Signal   string
	Target   float64       // u*, target utilization in (0, 1]
	DeadTime time.Duration // τ, from ordering a pod to its first served request
}
