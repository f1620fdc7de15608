package analysis

import "math"

// JudgingRecord is everything a run's referee read besides timeline.csv's
// rows (docs/design.md, "The referee"): its configuration, the moments the
// runner told it of (the spike started, the fault held, on_trap began, a
// scrape interval was read again), each with how many rows it had read by
// then, and how the run ended. result.json keeps it, so that `trigger
// judge` feeds the same rows in the same order to the same referee and
// gets the same verdict.
type JudgingRecord struct {
	// Version is JudgingVersion when the record was written.
	Version int            `json:"version"`
	Config  RefereeConfig  `json:"config"`
	Events  []JudgingEvent `json:"events,omitempty"`
	End     JudgingEnd     `json:"end"`
	// Rows is how many of timeline.csv's rows the referee read, and
	// Stepped how many of them, from the first, it judged as they came
	// (the rows after it read only when the load had stopped).
	Rows    int `json:"rows"`
	Stepped int `json:"stepped"`
}

// JudgingVersion is the version of the referee's rules a record was
// written under; `trigger judge` refuses a record of another version
// rather than give a verdict the run did not.
const JudgingVersion = 3

// RefereeConfig is what the referee knows before the first row, besides
// the plan's document (the scenario's λ, C, k, τ_out, patience, the
// layers' A): the recovery rule, the gate, the run's phases, and the
// signals with their delays.
type RefereeConfig struct {
	// TargetURL is the target's URL as the scenario gives it (sensitive
	// values redacted in result.json), for the referee's words.
	TargetURL string   `json:"target_url"`
	Gate      GateSpec `json:"gate"`
	// SuccessRatio and HoldS are the recovery rule: the first-attempt
	// success ratio back at or above SuccessRatio for HoldS seconds.
	SuccessRatio float64 `json:"success_ratio"`
	HoldS        float64 `json:"hold_s"`
	// WarmupS, SpikeS and ObserveS are the scenario's phases, seconds.
	WarmupS  float64 `json:"warmup_s"`
	SpikeS   float64 `json:"spike_s"`
	ObserveS float64 `json:"observe_s"`
	// FaultS is how long a capacity trigger holds once in place, seconds
	// (0: the run has a spike, no fault).
	FaultS float64 `json:"fault_s,omitempty"`
	// RetrySettleS is how long after the spike the clients' retry streams
	// take to reach the failed state's rates, seconds.
	RetrySettleS float64 `json:"retry_settle_s"`
	// Tracers says the driver sent tracers; TracerTimeoutS is their timeout.
	Tracers        bool    `json:"tracers,omitempty"`
	TracerTimeoutS float64 `json:"tracer_timeout_s,omitempty"`
	// Metrics says the run read the service's metrics from Prometheus;
	// Signals are its queries as they stood before the load (a scrape
	// interval read again later is an event).
	Metrics bool         `json:"metrics"`
	Signals []SignalInfo `json:"signals,omitempty"`
	// OnTrap is the scenario's on_trap action; nil without one.
	OnTrap *OnTrapRule `json:"on_trap,omitempty"`
	// JudgeHeldDemand ends an on_trap rate action as soon as the wait's
	// trend at the held demand is decided (trigger campaign's cells).
	JudgeHeldDemand bool `json:"judge_held_demand,omitempty"`
}

// OnTrapRule is the scenario's on_trap action as the referee needs it.
type OnTrapRule struct {
	Action   string  `json:"action"` // drop, rate or command
	RatePerS float64 `json:"rate_per_s,omitempty"`
	ObserveS float64 `json:"observe_s"`
}

// The kinds of JudgingEvent.
const (
	EventSpike        = "spike"         // the spike started: AtS, EndS
	EventFaultStarted = "fault_started" // the fault is in place: AtS
	EventFaultStopped = "fault_stopped" // its stop began: AtS
	EventOnTrap       = "on_trap"       // the on_trap action started: AtS
	EventScrape       = "scrape"        // Signal's scrape interval read again
)

// JudgingEvent is something the runner told the referee between rows.
type JudgingEvent struct {
	// Rows is how many rows the referee had read when it came.
	Rows int    `json:"rows"`
	Kind string `json:"kind"`
	// AtS is when it happened, seconds since the run started; EndS the
	// spike's planned end.
	AtS  float64 `json:"at_s,omitempty"`
	EndS float64 `json:"end_s,omitempty"`
	// Signal, ScrapeS and ScrapeFrom are a scrape interval read again.
	Signal     string  `json:"signal,omitempty"`
	ScrapeS    float64 `json:"scrape_s,omitempty"`
	ScrapeFrom string  `json:"scrape_from,omitempty"`
}

// JudgingEnd is how the run ended, as the runner tells the referee.
type JudgingEnd struct {
	// AtS is the driver's clock when the load stopped, seconds.
	AtS float64 `json:"at_s"`
	// Horizon says why the run ended without the referee's word (the
	// scenario's max_duration, the load schedule's end): the referee judges
	// what it has. "" when the referee ended it, or one of the others did.
	Horizon     string `json:"horizon,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	// Stopped is the reason of a stop condition that stopped the run.
	Stopped string `json:"stopped,omitempty"`
	// Inconclusive and InconclusiveKind are a harness failure that leaves
	// the run without a verdict (an agent lost, a fault that did not start).
	Inconclusive     string `json:"inconclusive,omitempty"`
	InconclusiveKind string `json:"inconclusive_kind,omitempty"`
	// Cohorts are the driver's cohorts as they stood when the load stopped.
	Cohorts []Cohort `json:"cohorts,omitempty"`
}

// Cohort is what became of the logical requests whose first attempts were
// sent in one second of a run: the driver knows every attempt they made.
type Cohort struct {
	TS        float64 `json:"t_s"`       // start of the second, seconds since the run started
	First     float64 `json:"first"`     // logical requests (first attempts sent)
	Attempts  float64 `json:"attempts"`  // attempts they sent in all, first attempts included
	Succeeded float64 `json:"succeeded"` // of First, requests that ended with a success
	Open      float64 `json:"open"`      // of First, requests not ended when the run stopped
}

// LagS is how far back a value of the signal read now can look, seconds:
// its offset plus its range window, stretched to the scrape interval
// (docs/model.md, "What a trigger test measures": signals and their
// delays).
func (q SignalInfo) LagS() float64 {
	return q.OffsetS + math.Max(q.RangeS, q.ScrapeIntervalS)
}

// WaitDelays is, for each wait source the signals (and tracers) offer,
// how long after the spike's end its samples hold only the state after
// it, seconds: the retries settling plus the queries' lags.
func WaitDelays(settleS float64, sigs []SignalInfo, tracers bool) map[WaitSource]float64 {
	lag := map[string]float64{}
	for _, q := range sigs {
		lag[q.Name] = q.LagS()
	}
	out := map[WaitSource]float64{}
	if l, ok := lag["wait"]; ok {
		out[WaitFromService] = settleS + l
	}
	if tracers {
		out[WaitFromTracers] = settleS
	}
	li, oki := lag["ingress"]
	ls, oks := lag["served"]
	if oki && oks {
		out[WaitFromBacklog] = settleS + math.Max(li, ls)
	}
	return out
}

// Resolutions is, for each wait source, the seconds between two
// independent samples: one scrape of its queries (tracers: one second).
func Resolutions(sigs []SignalInfo) map[WaitSource]float64 {
	out := map[WaitSource]float64{WaitFromTracers: 1}
	for _, q := range sigs {
		switch q.Name {
		case "wait":
			out[WaitFromService] = q.ScrapeIntervalS
		case "ingress", "served":
			out[WaitFromBacklog] = math.Max(out[WaitFromBacklog], q.ScrapeIntervalS)
		}
	}
	return out
}
