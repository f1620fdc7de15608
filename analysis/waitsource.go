package analysis

// WaitSource names a signal a run can judge the wait's trend on
// (WaitSeries.Source, the result document's wait_source and
// blind_signals, the chart's wait lines): each is defined once, below,
// and every package uses the constant.
type WaitSource string

// The wait sources, best first in WaitSources.
const (
	// WaitFromService is the service's own wait gauge (the wait query).
	WaitFromService WaitSource = "service"
	// WaitFromTracers are the driver's tracers that the service answered:
	// each one's latency is the wait it met.
	WaitFromTracers WaitSource = "tracers"
	// WaitFromBacklog is the backlog integrated from the service's rates,
	// Σ (ingress − served)/C: it lags by the queries' windows, and its
	// slope restates A_fail.
	WaitFromBacklog WaitSource = "ingress-served"
	// WaitFromFluidModel and WaitFromRequestModel are a model's own wait,
	// exact and without delay.
	WaitFromFluidModel   WaitSource = "fluid model"
	WaitFromRequestModel WaitSource = "request model"
)

// WaitSources are the wait sources, best first.
var WaitSources = []WaitSource{WaitFromService, WaitFromTracers, WaitFromBacklog}

// MeasuredJudgePolicy is the verdict rule's policy for real runs: at least
// three independent samples of the settled wait, and a floor of 0.002 s/s
// on the slope's standard error.
var MeasuredJudgePolicy = JudgePolicy{MinPoints: 3, MinStdErr: 0.002}

// BlindSignal is a wait source that cannot show the wait while first
// attempts fail (tracers a layer answers first, counters behind the
// queue), and why: it is never judged, nor shown as the wait.
type BlindSignal struct {
	Source WaitSource `json:"source"`
	Reason string     `json:"reason"`
}
