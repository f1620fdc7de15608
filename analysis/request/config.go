package request

import (
	"errors"
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// FailureKind is how an attempt failed, as the retry policy sees it.
type FailureKind uint8

const (
	// FailureTimeout: the client's timeout fired before the answer came.
	FailureTimeout FailureKind = iota + 1
	// FailureRefused: the admission bound refused the attempt at the door
	// (the specimen answers 503); it cost no service time.
	FailureRefused
)

// RetryFailure describes a failed attempt to a RetryDecider.
type RetryFailure struct {
	Attempt    int         // 1 = the first attempt
	Kind       FailureKind // timeout or refused
	StartedS   float64     // when the logical request started, seconds from the start of the run
	PrevDelayS float64     // the backoff before this attempt, seconds (0 for the first)
}

// RetryDecider makes the clients' retry decisions in a request-level run.
// Times are seconds from the start of the run and never go backwards. The
// simulator calls FirstAttempt for every logical request, Succeeded for
// every attempt answered in time (when its outcome is known, at its
// arrival), and Failed when an attempt's failure reaches its client: at its
// timeout, or at once for a refusal. convert.SimRetry adapts loadgen's
// Retrier, so the model applies the driver's own caps, budgets, token
// buckets, backoff and jitter.
type RetryDecider interface {
	FirstAttempt(nowS float64)
	Succeeded(nowS float64)
	// Failed says whether the failed attempt is retried and after how many
	// seconds of backoff (counted from nowS).
	Failed(nowS float64, f RetryFailure) (retry bool, delayS float64)
}

// RetryModel is the clients' retry policy for the request-level model.
type RetryModel struct {
	// New returns a fresh decider for one run; seed feeds its jitter. Nil
	// means clients never retry.
	New func(seed uint64) RetryDecider
	// MaxRetries is R, used to size the timeline's attempt columns and the
	// settling time of A_fail's window; negative means unlimited.
	MaxRetries int
	// MaxDelayS is the longest backoff, seconds (settling time).
	MaxDelayS float64
}

// Config is one run of the request-level model.
type Config struct {
	Stages   []analysis.DemandStage // first-attempt demand; the run lasts their total duration
	Arrivals vocab.Arrivals
	// Pods is N and Workers the servers in one pod: c = Pods × Workers
	// servers. Zero means 1 (vocab.DefaultWorkers for Workers).
	Pods, Workers int
	// PodRatePerS is the requests per second one pod finishes when busy;
	// the mean service time is Workers/PodRatePerS seconds and C = N·c.
	PodRatePerS float64
	ServiceTime vocab.ServiceTime
	// ServiceCV is the lognormal coefficient of variation; zero means
	// vocab.DefaultServiceCV (1).
	ServiceCV float64
	Queue     vocab.Queue
	TimeoutS  float64 // τ_out, seconds
	Retry     RetryModel
	// InnerAmplification is the work a timing-out client attempt brings when
	// hidden layers retry it on the way (the product of their factors, as in
	// fluid.Config): ⌊A⌋ − 1 extra copies, one more with probability A − ⌊A⌋,
	// arriving with it. Zero means 1.
	InnerAmplification float64
	// DeadlinePropagation drops a request whose deadline (arrival + τ_out)
	// passed before it reached a server: it costs no service.
	DeadlinePropagation bool
	// FloorS is L₀, the service's latency floor (docs/model.md, "Latency
	// laws and what sustains a trap"): a request's latency is L₀ plus its
	// wait and service, so it times out once those pass τ_out − L₀.
	// Zero: none; below TimeoutS.
	FloorS float64
	// Concurrency serves by the concurrency law instead of queues: no
	// servers; an attempt arriving while n requests are in flight takes
	// L₀ + n/C (C = CapacityPerS, L₀ = FloorS), work of departed clients
	// included (docs/model.md, "Latency laws and what sustains a trap").
	// Pods, Workers, ServiceTime, Queue and DeadlinePropagation do not
	// apply; a fault scales C.
	Concurrency bool
	// AdmissionBoundS is b: admit an attempt only if its queue then holds at
	// most b seconds of that queue's capacity (docs/model.md, "Autoscalers,
	// ceilings and admission", admission bound).
	// Zero means no bound.
	AdmissionBoundS float64
	// RefusalDelayS is the least time from a refusal to the retry (the
	// refusal's round trip); zero means 10 ms, the fluid model's step.
	RefusalDelayS float64
	// Seed makes the run reproducible: the same seed, the same result.
	Seed uint64
	// SampleS is the timeline's resolution, seconds; zero means 1 s.
	SampleS float64
	// SpikeStartS and SpikeEndS delimit the spike (seconds from the start);
	// when both are zero, the first stage with the highest rate.
	SpikeStartS, SpikeEndS float64
	// StopWhenRecovered ends the run once the service has recovered after
	// the spike, nothing is pending and no later stage overloads it alone.
	StopWhenRecovered bool
	// CollapseWaitS ends the run as collapsed once the wait passes it; zero
	// means never (tipping sweeps set it to a multiple of τ_out).
	CollapseWaitS float64
	// MaxPending bounds the attempts waiting for their timeout or their
	// retry; a run that needs more ends early, Truncated. Zero means 4 Mi.
	MaxPending int
	// FaultCapacity is a capacity drop (docs/model.md, "A capacity
	// trigger"): a request whose service starts from FaultStartS to
	// FaultEndS takes 1/FaultCapacity times as long. Zero: none.
	FaultCapacity          float64
	FaultStartS, FaultEndS float64
}

// Errors of the request-level simulator.
var (
	// ErrConfig is wrapped by every configuration error.
	ErrConfig = errors.New("request model: invalid configuration")
)

const defaultMaxPending = 4 << 20

func (c *Config) normalize() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	if c.Pods == 0 {
		c.Pods = 1
	}
	if c.Workers == 0 {
		c.Workers = vocab.DefaultWorkers
	}
	if c.ServiceCV == 0 {
		c.ServiceCV = vocab.DefaultServiceCV
	}
	switch {
	case len(c.Stages) == 0:
		return bad("no stages")
	case c.Pods < 0 || c.Workers < 0:
		return bad("pods %d and workers %d must be positive", c.Pods, c.Workers)
	case c.Pods*c.Workers > 1<<20:
		return bad("%d servers is more than the model handles", c.Pods*c.Workers)
	case c.FaultCapacity < 0 || c.FaultCapacity > 1 || math.IsNaN(c.FaultCapacity):
		return bad("fault capacity %v must be within [0, 1]", c.FaultCapacity)
	case !(c.PodRatePerS > 0) || math.IsInf(c.PodRatePerS, 0):
		return bad("pod rate %v/s must be positive", c.PodRatePerS)
	case !(c.TimeoutS > 0) || math.IsInf(c.TimeoutS, 0):
		return bad("timeout %v s must be positive", c.TimeoutS)
	case c.FloorS < 0 || !(c.FloorS < c.TimeoutS):
		return bad("latency floor %v s must be at least 0 and below the timeout %v s", c.FloorS, c.TimeoutS)
	case c.AdmissionBoundS < 0 || c.RefusalDelayS < 0 || c.CollapseWaitS < 0 || c.InnerAmplification < 0:
		return bad("admission bound, refusal delay, collapse wait and inner amplification must not be negative")
	case c.ServiceCV < 0 || math.IsNaN(c.ServiceCV):
		return bad("service cv %v must not be negative", c.ServiceCV)
	case c.ServiceTime > vocab.ServiceLognormal || c.Queue > vocab.QueueShared || c.Arrivals > vocab.Uniform:
		return bad("unknown service time, queue or arrival kind")
	}
	for i, s := range c.Stages {
		if s.DurationS < 0 || s.RatePerS < 0 || math.IsNaN(s.DurationS+s.RatePerS) || math.IsInf(s.DurationS+s.RatePerS, 0) {
			return bad("stage %d: duration %v s and rate %v/s must be finite and not negative", i, s.DurationS, s.RatePerS)
		}
	}
	if c.InnerAmplification == 0 {
		c.InnerAmplification = 1
	}
	if c.RefusalDelayS == 0 {
		c.RefusalDelayS = 0.01
	}
	if c.SampleS <= 0 {
		c.SampleS = 1
	}
	if c.MaxPending <= 0 {
		c.MaxPending = defaultMaxPending
	}
	if c.SpikeStartS == 0 && c.SpikeEndS == 0 {
		c.SpikeStartS, c.SpikeEndS = analysis.PeakStage(c.Stages)
	}
	return nil
}

// CapacityPerS is C = Pods × PodRatePerS, requests per second (zero pods count as one).
func (c Config) CapacityPerS() float64 {
	return float64(max(c.Pods, 1)) * c.PodRatePerS
}
