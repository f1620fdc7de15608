package fluid

import (
	"errors"
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// Retry is the retry policy of the fluid model's clients.
type Retry struct {
	// MaxRetries is R, retries after the first attempt.
	MaxRetries int `json:"max_retries"`
	// HasBudget says whether Budget limits retries.
	HasBudget bool `json:"has_budget,omitempty"`
	// Budget is β: retries sent per second at most β × first attempts per
	// second at that moment.
	Budget float64 `json:"budget,omitempty"`
	// BackoffS[i] is the delay in seconds before retry i+1, after the failure
	// is known (for jitter, its mean); the last value repeats. Empty: none.
	BackoffS []float64 `json:"backoff_s,omitempty"`
}

func (r Retry) backoff(retry int) float64 {
	if len(r.BackoffS) == 0 {
		return 0
	}
	return r.BackoffS[min(retry-1, len(r.BackoffS)-1)]
}

// Config is one run of the fluid model: a FIFO queue served at a fixed
// capacity, whose clients give up after TimeoutS and retry, and which serves
// abandoned work (docs/model.md, "The trap").
type Config struct {
	Stages       []analysis.DemandStage // demand; the run lasts their total duration
	CapacityPerS float64                // C, work per second
	TimeoutS     float64                // τ_out, seconds
	Retry        Retry
	// InnerAmplification is the work a failing client attempt brings when
	// hidden layers (gateway, mesh) retry it on the way: the product of their
	// amplifications. Zero means 1. The inner retries are taken to arrive
	// with the attempt (their timeouts are short against τ_out).
	InnerAmplification float64
	// RetryLagS is the time from a timed-out attempt's arrival to its retry,
	// before backoff. Zero means τ_out, the delay form: a client learns of
	// the failure when its timeout fires. A lag of one step reproduces the
	// closed form's idealization of immediate retries (docs/model.md,
	// "The trap", retry lag).
	RetryLagS float64
	// AdmissionBoundS is b: admit an attempt only if the queue then holds at
	// most b·C of work; refused attempts cost no service and count as
	// failures the policy may retry. Zero means no bound.
	AdmissionBoundS float64
	// Concurrency serves by the concurrency law (docs/model.md, "Latency
	// laws and what sustains a trap"): the work in the system is N
	// requests in flight, all served at once, at X(N) = N/(L₀ + N/C)
	// per second, never C; the wait N/C is compared with TimeoutS, which
	// is then the wait's patience τ_out − L₀. FloorS is L₀, seconds.
	Concurrency bool
	FloorS      float64
	// StepS is the integration step in seconds; zero means 10 ms.
	StepS float64
	// SampleS is the timeline's resolution in seconds; zero means 1 s.
	SampleS float64
	// SpikeStartS and SpikeEndS delimit the spike (seconds from the start);
	// when both are zero, the first stage with the highest rate.
	SpikeStartS, SpikeEndS float64
	// StopWhenRecovered ends the run as soon as the service has recovered
	// after the spike and no later stage can overload it alone.
	StopWhenRecovered bool
	// Fault is a capacity drop (docs/model.md, "A capacity trigger"):
	// from FaultStartS to FaultEndS the service serves FaultCapacity × C.
	// Zero FaultCapacity: none.
	FaultCapacity          float64
	FaultStartS, FaultEndS float64
}

// Errors of the fluid simulator.
var (
	// ErrConfig is wrapped by every configuration error.
	ErrConfig = errors.New("fluid: invalid configuration")
)

func (c *Config) normalize() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case len(c.Stages) == 0:
		return bad("no stages")
	case !(c.CapacityPerS > 0):
		return bad("capacity %v must be positive", c.CapacityPerS)
	case c.FloorS < 0 || math.IsNaN(c.FloorS):
		return bad("latency floor %v s must not be negative", c.FloorS)
	case !(c.TimeoutS > 0):
		return bad("timeout %v s must be positive", c.TimeoutS)
	case c.Retry.MaxRetries < 0:
		return bad("max retries %d is negative", c.Retry.MaxRetries)
	case c.AdmissionBoundS < 0:
		return bad("admission bound %v s is negative", c.AdmissionBoundS)
	case c.FaultCapacity < 0 || c.FaultCapacity > 1 || math.IsNaN(c.FaultCapacity):
		return bad("fault capacity %v must be within [0, 1]", c.FaultCapacity)
	}
	for i, s := range c.Stages {
		if s.DurationS < 0 || s.RatePerS < 0 || math.IsNaN(s.DurationS+s.RatePerS) {
			return bad("stage %d: duration %v s and rate %v/s must not be negative", i, s.DurationS, s.RatePerS)
		}
	}
	if c.StepS <= 0 {
		c.StepS = 0.01
	}
	if c.SampleS <= 0 {
		c.SampleS = 1
	}
	if c.SampleS < c.StepS {
		c.SampleS = c.StepS
	}
	if c.RetryLagS <= 0 {
		c.RetryLagS = c.TimeoutS
	}
	if c.InnerAmplification <= 0 {
		c.InnerAmplification = 1
	}
	if c.SpikeStartS == 0 && c.SpikeEndS == 0 {
		c.SpikeStartS, c.SpikeEndS = analysis.PeakStage(c.Stages)
	}
	return nil
}

// steps converts seconds to a whole number of steps of stepS (at least lo).
func steps(seconds, stepS float64, lo int) int {
	return max(lo, int(math.Round(seconds/stepS)))
}

// cohort is admitted work that arrived while the model was in one state:
// failing cohorts are served after their clients gave up (retry debt).
type cohort struct {
	work    float64
	failing bool
}

// fifo is the queue's contents in arrival order, adjacent cohorts of the
// same state merged, so its length is the number of state changes.
type fifo struct {
	items []cohort
	head  int
}

func (q *fifo) push(work float64, failing bool) {
	if work <= 0 {
		return
	}
	if n := len(q.items); n > q.head && q.items[n-1].failing == failing {
		q.items[n-1].work += work
		return
	}
	q.items = append(q.items, cohort{work, failing})
}

// serve removes up to work from the head and returns how much of it was
// answered and how much abandoned.
func (q *fifo) serve(work float64) (answered, abandoned float64) {
	for work > 0 && q.head < len(q.items) {
		c := &q.items[q.head]
		take := math.Min(work, c.work)
		if c.failing {
			abandoned += take
		} else {
			answered += take
		}
		c.work -= take
		work -= take
		if c.work <= 0 {
			q.head++
		}
	}
	if q.head == len(q.items) || q.head > 1024 && q.head*2 > len(q.items) {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	return answered, abandoned
}

func (q *fifo) clear() { q.items, q.head = q.items[:0], 0 }
