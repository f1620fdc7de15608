package analysis

import (
	"math"

	"github.com/trigger-test/trigger/vocab"
)

// Document is the result document that plan (predicted), simulate
// (modelled) and run (measured) all produce (docs/design.md, "The result
// document"). JSON keys are snake_case with units in the name;
// values that are unknown or infinite are null.
type Document struct {
	// Kind is "plan", "simulate" or "run".
	Kind string `json:"kind"`
	// Model names the model for simulate ("fluid", "request").
	Model string `json:"model,omitempty"`
	// TriggerVersion is the version of trigger that made a run's document
	// (the runner fills it: the module's version, else the VCS revision,
	// with "+dirty" for a modified tree, else "devel"); omitted by a
	// trigger that did not record it. A replay (`trigger judge`) keeps
	// the run's.
	TriggerVersion string          `json:"trigger_version,omitempty"`
	Scenario       ScenarioSection `json:"scenario"`
	// LatencyLaw is the service's latency law the figures rest on: the
	// scenario's, the one a run fitted, or the queue assumed (its Source
	// says which).
	LatencyLaw    *LatencyLaw          `json:"latency_law,omitempty"`
	Trigger       TriggerCheck         `json:"trigger"`
	Amplification AmplificationSection `json:"amplification"`
	Prediction    Prediction           `json:"prediction"`
	Observation   *Observation         `json:"observation"`
	Verdict       Verdict              `json:"verdict"`
	// RecoveryS is seconds from the spike's end until the service recovered;
	// null when it did not.
	RecoveryS *float64   `json:"recovery_s"`
	Gate      GateResult `json:"gate"`
	// Timeline is the model's timeline, one row per sample (simulate only;
	// a run writes the same rows to timeline.csv and leaves this empty).
	Timeline []TimelineRow `json:"timeline,omitempty"`
	// Runs is the spread over repeated request-level runs (simulate
	// --model request --runs N with N > 1); the rest of the document shows
	// the median run.
	Runs *RunSpread `json:"runs,omitempty"`
	// TrapProbability is the model's P(trap) for the test, over seeded
	// runs of the request-level model (plan, simulate and run alike); nil
	// when it was not computed (a document written before it was).
	TrapProbability *TrapProbability `json:"trap_probability,omitempty"`
	// Fleet describes the agents of a run spread over several (trigger
	// run --workers N); omitted for one driver.
	Fleet *FleetInfo `json:"fleet,omitempty"`
	// Comparison is the run against gate.baseline's run, when the scenario
	// gives one (trigger compare's); its outcome is the gate's "baseline"
	// criterion.
	Comparison *Comparison `json:"comparison,omitempty"`
	// Judging is what the run's referee read besides timeline.csv (run
	// only): `trigger judge` replays the run from it.
	Judging *JudgingRecord `json:"judging,omitempty"`
}

// ScenarioSection restates the scenario's model inputs.
type ScenarioSection struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	File        string `json:"file,omitempty"`
	// Hash is the first 16 hex digits of the SHA-256 of the scenario's
	// text, and Target the scheme and host of its target: `trigger
	// compare` compares only runs of the same test.
	Hash   string `json:"hash,omitempty"`
	Target string `json:"target,omitempty"`
	// DemandPerS is λ, baseline first attempts per second.
	DemandPerS float64 `json:"demand_per_s"`
	// CapacityPerS is C, work per second when busy.
	CapacityPerS float64 `json:"capacity_per_s"`
	// Utilization is ρ = λ/C.
	Utilization float64 `json:"utilization"`
	// Multiplier is k; SpikeS is Δ. With a fault instead of a spike, k is
	// 1 and Δ is the fault's.
	Multiplier float64 `json:"multiplier"`
	SpikeS     float64 `json:"spike_s"`
	// Fault is the capacity trigger, when the scenario has one instead of
	// a spike.
	Fault    *FaultSection `json:"fault,omitempty"`
	WarmupS  float64       `json:"warmup_s"`
	ObserveS float64       `json:"observe_s"`
	// TimeoutS is τ_out, the clients' timeout.
	TimeoutS float64 `json:"timeout_s"`
	// PatienceS is the shortest patience in front of the service (τ_out or
	// a layer's shorter per-try timeout), and PatienceFrom names it; the
	// trigger section compares the overload with it.
	PatienceS    float64 `json:"patience_s"`
	PatienceFrom string  `json:"patience_from"`
	// AdmissionBoundS is b; omitted when there is none.
	AdmissionBoundS float64           `json:"admission_bound_s,omitempty"`
	Variables       map[string]string `json:"variables,omitempty"`
	// Requests is the target's request mix, each with its share of first
	// attempts from the weights; omitted for a single request.
	Requests []RequestShare `json:"requests,omitempty"`
	// Touches is what the test does outside its process besides its
	// load: servers, commands, secrets (named) and files.
	Touches *Touches `json:"touches,omitempty"`
}

// FaultSection is a capacity trigger as the scenario gives it: capacity
// C′ = Capacity·C for Δ = DurationS after the warmup (docs/model.md, "A
// capacity trigger").
type FaultSection struct {
	Name      string  `json:"name"`
	Capacity  float64 `json:"capacity"`
	DurationS float64 `json:"duration_s"`
	// Start and Stop are the commands, as argv lists.
	Start []string `json:"start"`
	Stop  []string `json:"stop"`
}

// RequestShare is one request of a target's mix as the scenario gives it.
type RequestShare struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	// Share is Weight over the mix's total weight.
	Share float64 `json:"share"`
	// CostS is the seconds of the service's capacity one such request
	// takes, when the scenario gives it (then the mix's capacity is
	// 1/Σ Share·CostS, docs/model.md, "A mix of requests").
	CostS *float64 `json:"cost_s,omitempty"`
}

// LayerFactor is one retry layer's share of the amplification.
type LayerFactor struct {
	RetryLayer
	Amplification float64 `json:"amplification"`
}

// AmplificationSection is what each layer contributes to A and, after a
// run, what the service really saw.
type AmplificationSection struct {
	// Client is the clients' own amplification.
	Client float64 `json:"client"`
	// Layers lists every retry layer, the client first.
	Layers []LayerFactor `json:"layers"`
	// Predicted is the product of every layer's factor.
	Predicted float64 `json:"predicted"`
	// Measured is A_fail, ingress per first attempt in the failed window,
	// with its 95 % interval (MeasuredLo, MeasuredHi); null when it is not
	// a measurement, and then MeasuredNote says why, with the bound the
	// counters gave, if any (MeasuredAtLeast, MeasuredAtMost).
	Measured        *float64 `json:"measured"`
	MeasuredLo      *float64 `json:"measured_lo,omitempty"`
	MeasuredHi      *float64 `json:"measured_hi,omitempty"`
	MeasuredNote    string   `json:"measured_note,omitempty"`
	MeasuredAtLeast *float64 `json:"measured_at_least,omitempty"`
	MeasuredAtMost  *float64 `json:"measured_at_most,omitempty"`
	// Hidden is Measured / Client: retries by layers the clients do not
	// see; null unless A_fail is measured and no other estimate of A
	// contradicts it, and never below 1 (HiddenNote says why).
	Hidden     *float64 `json:"hidden"`
	HiddenNote string   `json:"hidden_note,omitempty"`
	// LostBeforeCounter is the share of the clients' attempts that never
	// reached the ingress counter (A_fail below what the driver counted
	// them send): lost before the service, never a layer; omitted when none.
	LostBeforeCounter *float64 `json:"lost_before_counter,omitempty"`
	// Standing is the A a run stands by when its estimates are set side
	// by side (A_fail, else A from the wait's slope, else from the
	// recovery time), and why; omitted when nothing measured A.
	Standing *StandingAmplification `json:"standing,omitempty"`
}

// StandingAmplification is the estimate of A a run stands by.
type StandingAmplification struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	// From names the estimate: "A_fail", "A from the wait's slope", "A
	// from the recovery time".
	From string `json:"from"`
	// Note says why it stands, and which estimates disagree with it.
	Note string `json:"note"`
}

// Prediction is what the closed forms of docs/model.md say will happen.
type Prediction struct {
	Verdict Verdict `json:"verdict"`
	// RecoveryS is the full closed-form recovery time (null when trapped or
	// unknown); RecoveryWithRetryLagS corrects it for the retries' lag.
	RecoveryS             *float64 `json:"recovery_s"`
	RecoveryWithRetryLagS *float64 `json:"recovery_with_retry_lag_s,omitempty"`
	// TrapThreshold is 1/A: the utilization at and above which a triggered
	// service stays failed.
	TrapThreshold float64 `json:"trap_threshold"`
	// AmplifiedUtilization is A·ρ; at or above 1 the service is trapped.
	AmplifiedUtilization float64 `json:"amplified_utilization"`
	// CapacityAtTimeoutPerS is C_τ, the throughput at which the latency
	// reaches the patience, under a latency law that grows with
	// concurrency (AmplifiedUtilization is then A·λ/C_τ); omitted under
	// the queue law, where it is C.
	CapacityAtTimeoutPerS *float64 `json:"capacity_at_timeout_per_s,omitempty"`
	// PeakWaitS is the wait at the spike's end.
	PeakWaitS float64 `json:"peak_wait_s"`
	// MinMultiplier and MinSpikeS are the smallest k (for this Δ) and Δ (for
	// this k) that trigger; null when none does.
	MinMultiplier *float64 `json:"min_multiplier"`
	MinSpikeS     *float64 `json:"min_spike_s"`
	// With a fault: MaxFaultCapacity is the largest C′/C that triggers for
	// its Δ (the smallest loss that does is 1 − it), MinFaultS the
	// shortest fault that triggers at its capacity (docs/model.md, "A
	// capacity trigger"); nil without a fault.
	MaxFaultCapacity *float64 `json:"max_fault_capacity,omitempty"`
	MinFaultS        *float64 `json:"min_fault_s,omitempty"`
	// AdmissionBound, Scaler and Ceiling appear when the scenario describes them.
	AdmissionBound *AdmissionPrediction `json:"admission_bound,omitempty"`
	Scaler         *ScalerPrediction    `json:"scaler,omitempty"`
	Ceiling        *CeilingPrediction   `json:"ceiling,omitempty"`
	// JudgeAfterS is how long after the spike's end a run can judge a trap
	// at the soonest: the wait signal's delay (the clients' retries
	// settling, the queries' windows, the scrape interval) and enough
	// independent samples of it for a trend; null when the scenario gives
	// no wait signal. JudgeAfterNote says what it is made of.
	JudgeAfterS    *float64 `json:"judge_after_s,omitempty"`
	JudgeAfterNote string   `json:"judge_after_note,omitempty"`
	// Recommendations are plain-words advice for the scenario's author.
	Recommendations []string `json:"recommendations"`
}

// AdmissionPrediction is the admission-bound check (docs/model.md,
// "Autoscalers, ceilings and admission").
type AdmissionPrediction struct {
	BoundS   float64 `json:"bound_s"`
	TimeoutS float64 `json:"timeout_s"`
	// Holds is b < τ_out: no debt can form.
	Holds bool `json:"holds"`
}

// ScalerPrediction applies the scaler rules (docs/model.md, "Autoscalers,
// ceilings and admission").
type ScalerPrediction struct {
	Signal vocab.ScalerSignal `json:"signal"`
	Target float64            `json:"target"`
	// DeadTimeS is τ; TriggersWithinDeadTime says whether the spike, cut to
	// the dead time, is still a trigger (before the first new pod).
	DeadTimeS              float64 `json:"dead_time_s,omitempty"`
	TriggersWithinDeadTime bool    `json:"triggers_within_dead_time"`
	ScalerVerdict
}

// CeilingPrediction is the replica-ceiling check (docs/model.md,
// "Autoscalers, ceilings and admission").
type CeilingPrediction struct {
	MaxReplicas int `json:"max_replicas"`
	// Escapes is M > M*: at its ceiling the service can drain the debt.
	Escapes bool `json:"escapes"`
	// DrainPerS is c·(M − M*), the rate the debt drains at the ceiling.
	DrainPerS float64 `json:"drain_per_s"`
	// Band is the safe band, when the scalability peak is known.
	Band             *CeilingBand `json:"band,omitempty"`
	CeilingFloorPods float64      `json:"floor_pods"`
}

// Observation is what a model run or a real run showed. Fields a source
// does not know are null.
type Observation struct {
	// Source is "fluid", "request" or "run".
	Source string `json:"source"`
	// T0S is seconds from the spike's start until the wait crossed the
	// patience: in a run, measured from the cohorts (the share of the first
	// failing second's requests that still succeeded).
	T0S        *float64 `json:"t0_s"`
	PeakWaitS  *float64 `json:"peak_wait_s"`
	FinalWaitS *float64 `json:"final_wait_s"`
	// WaitSlope is the wait's final trend, seconds per second (A·ρ − 1 when failed).
	WaitSlope *float64 `json:"wait_slope"`
	// ProjectedRecoveryS projects the recovery of a service still failing.
	ProjectedRecoveryS *float64 `json:"projected_recovery_s"`
	// LostWorkS is first attempts that failed, in seconds of baseline demand.
	LostWorkS *float64 `json:"lost_work_s"`
	// TimedOut, Refused, Abandoned and FailedRequests are totals over the run.
	TimedOut       *float64 `json:"timed_out_total"`
	Refused        *float64 `json:"refused_total"`
	Abandoned      *float64 `json:"abandoned_total"`
	FailedRequests *float64 `json:"failed_requests_total"`
	// AmplificationFailed is A_fail in the failed window.
	AmplificationFailed *float64 `json:"amplification_failed"`
	// EndS is the length of the run in seconds.
	EndS float64 `json:"end_s"`

	// What a real run adds (kind "run").

	// StartedAt is the wall-clock time (RFC 3339, UTC) at which the run's
	// clock started: every *_s time of the run counts from it, so a run can
	// be laid over the service's own dashboards.
	StartedAt string `json:"started_at,omitempty"`
	// SpikeStartS and SpikeEndS are seconds since the run started.
	SpikeStartS *float64 `json:"spike_start_s,omitempty"`
	SpikeEndS   *float64 `json:"spike_end_s,omitempty"`
	// BaselinePerS, CapacityPerS and Utilization are λ, C and ρ as measured;
	// CapacitySource says whether C came from the served rate or the scenario.
	BaselinePerS   *float64 `json:"baseline_per_s,omitempty"`
	CapacityPerS   *float64 `json:"capacity_per_s,omitempty"`
	CapacitySource string   `json:"capacity_source,omitempty"`
	Utilization    *float64 `json:"utilization,omitempty"`
	// AmplificationClient is attempts the clients sent per logical request,
	// counted by cohort over the requests whose every attempt failed.
	AmplificationClient *float64 `json:"amplification_client,omitempty"`
	// AmplificationFromSlope is (wait slope + 1)/ρ, from a wait measured on
	// its own (gauge, tracers); AmplificationFromRecovery inverts the
	// recovery-time form at the measured ρ and t0.
	AmplificationFromSlope    *float64 `json:"amplification_from_slope,omitempty"`
	AmplificationFromRecovery *float64 `json:"amplification_from_recovery,omitempty"`
	// PredictedRecoveryS is the full closed form at the A the run stands by
	// (else the scenario's), the measured ρ and t0; PredictedRecoveryFrom
	// says at which A, in words.
	PredictedRecoveryS    *float64 `json:"predicted_recovery_s,omitempty"`
	PredictedRecoveryFrom string   `json:"predicted_recovery_from,omitempty"`
	// FailedFromS and FailedToS delimit the settled failed window A_fail
	// was measured over, seconds since the run started.
	FailedFromS *float64 `json:"failed_from_s,omitempty"`
	FailedToS   *float64 `json:"failed_to_s,omitempty"`
	// WaitSource names the wait signal the trend was judged on: "service"
	// (the scenario's wait query), "tracers" (probes the service answered)
	// or "ingress-served" (the backlog integrated from the service's
	// rates), the best that had data; WaitSourceReason says why it and not
	// a better one. WaitDelayS is its delay after the spike's end, seconds:
	// samples before it still carried the spike and were not judged.
	WaitSource       WaitSource `json:"wait_source,omitempty"`
	WaitSourceReason string     `json:"wait_source_reason,omitempty"`
	WaitDelayS       *float64   `json:"wait_delay_s,omitempty"`
	// BlindSignals are the wait sources found blind: they could not show
	// the wait while first attempts failed, and were neither judged nor
	// shown as the wait.
	BlindSignals []BlindSignal `json:"blind_signals,omitempty"`
	// Observed is what the clients saw that decided the verdict before
	// any wait signal: the service failing past its recovery budget, or
	// to the end of the observation, at baseline demand.
	Observed string `json:"observed,omitempty"`
	// WaitSlopeLo and WaitSlopeHi bound WaitSlope (95 %).
	WaitSlopeLo *float64 `json:"wait_slope_lo,omitempty"`
	WaitSlopeHi *float64 `json:"wait_slope_hi,omitempty"`
	// Signals lists the run's Prometheus signals with their delays.
	Signals []SignalInfo `json:"signals,omitempty"`
	// PatienceS is the shortest patience in front of the service the run
	// used (declared, or measured from a layer that gives up first), and
	// PatienceFrom says which.
	PatienceS    *float64 `json:"patience_s,omitempty"`
	PatienceFrom string   `json:"patience_from,omitempty"`
	// FirstFailed totals first attempts that failed, whatever the class;
	// FirstTimedOut, FirstErrors and FirstConnect split them: timed out at
	// the client, answered with an error status, connection refused or reset.
	FirstFailed   *float64 `json:"first_failed_total,omitempty"`
	FirstTimedOut *float64 `json:"first_timed_out_total,omitempty"`
	FirstErrors   *float64 `json:"first_errors_total,omitempty"`
	FirstConnect  *float64 `json:"first_connect_total,omitempty"`
	// FirstAuth is the part of FirstErrors answered 401 or 403 (the
	// credentials refused); left out when there was none.
	FirstAuth *float64 `json:"first_auth_total,omitempty"`
	// Requests is, for a target with a request mix, what each request got:
	// its share of first attempts (expected from the weights, and as sent)
	// and how its first attempts ended; left out for a single request
	// and for a run spread over agents.
	Requests []RequestResult `json:"requests,omitempty"`
	// Fault is what the run's capacity trigger did; nil without one.
	Fault *FaultOutcome `json:"fault,omitempty"`
	// JudgedS is when the run judged the service trapped or metastable,
	// seconds after the spike's end (null when it did not).
	JudgedS *float64 `json:"judged_s,omitempty"`
	// VerdictReason says, in words, what decided the verdict.
	VerdictReason string `json:"verdict_reason,omitempty"`
	// Findings are what the measurement says in plain words (a hidden
	// retry layer, a slower recovery than predicted, a driver that fell
	// behind its schedule).
	Findings []string `json:"findings,omitempty"`
	// Estimates is the table of predicted against measured quantities.
	Estimates []Estimate `json:"estimates,omitempty"`
	// OnTrap is what the on_trap action did, when one ran.
	OnTrap *OnTrapResult `json:"on_trap,omitempty"`
	// Advice is the run's advice: the plan's recommendations less what
	// the run's measurements contradict, with what the named sustaining
	// effect and the fitted law call for (Document.Advice).
	Advice []string `json:"advice,omitempty"`
	// SustainedBy says what held a trapped or metastable service down,
	// from what the run measured; nil for other verdicts.
	SustainedBy *Sustaining `json:"sustained_by,omitempty"`
	// LatencyByPhase is the first attempts' latency in each phase of the
	// run (warmup, spike, observe, and on_trap when the action ran), in
	// that order; left out for a run spread over agents, whose drivers'
	// histograms are not merged.
	LatencyByPhase []PhaseLatency `json:"latency_by_phase,omitempty"`
	// Dropped and RefusedInFlight count first attempts the driver could not
	// send on schedule (lag bound) or at all (max_in_flight): the driver's health.
	Dropped         *float64 `json:"dropped_total,omitempty"`
	RefusedInFlight *float64 `json:"refused_in_flight_total,omitempty"`
	// Interrupted is set when the run was stopped by a signal; Inconclusive
	// says why a run could not judge the service.
	Interrupted  bool   `json:"interrupted,omitempty"`
	Inconclusive string `json:"inconclusive,omitempty"`
	// StoppedBy is the brake that stopped the run's load (nil: none did).
	StoppedBy *StopRecord `json:"stopped_by,omitempty"`
}

// Estimate is one row of the predicted-against-measured table.
type Estimate struct {
	Name      string   `json:"name"`  // snake_case key, e.g. "amplification_fail"
	Label     string   `json:"label"` // for people, e.g. "A_fail (ingress / first attempts)"
	Unit      string   `json:"unit,omitempty"`
	Predicted *float64 `json:"predicted"`
	Measured  *float64 `json:"measured"`
	// MeasuredLo and MeasuredHi bound the measured value (95 %); null when
	// the data give no interval.
	MeasuredLo *float64 `json:"measured_lo"`
	MeasuredHi *float64 `json:"measured_hi"`
	Note       string   `json:"note,omitempty"`
}

// SignalInfo is one of a run's Prometheus signals and how late it tells
// the truth.
type SignalInfo struct {
	Name  string `json:"name"` // the scenario attribute: ingress, served, wait, ...
	Query string `json:"query"`
	// RangeS and OffsetS are the query's longest range window and offset.
	RangeS  float64 `json:"range_s"`
	OffsetS float64 `json:"offset_s,omitempty"`
	// ScrapeIntervalS is its series' scrape interval, and ScrapeIntervalFrom
	// how the run found it.
	ScrapeIntervalS    float64 `json:"scrape_interval_s"`
	ScrapeIntervalFrom string  `json:"scrape_interval_from,omitempty"`
	// DelayS is how long after the spike's end its value holds only the
	// state after the spike: the clients' retries settling, plus offset and
	// range window (for a query without one, the scrape interval).
	DelayS float64 `json:"delay_s"`
}

// OnTrapResult is what the scenario's on_trap action did.
type OnTrapResult struct {
	Action string `json:"action"`
	// AtS is when the action started, seconds since the spike's end.
	AtS float64 `json:"at_s"`
	// RecoveryS is seconds from the action until the service was back; null
	// when it did not come back within on_trap's observation.
	RecoveryS *float64 `json:"recovery_s"`
	// Error is set when the action itself failed (a command's exit status).
	Error string `json:"error,omitempty"`
	// HeldTrend is, for action "rate", the wait's trend at the held demand
	// (A·λ/C − 1 in the failed state: falling below λ_r, not falling at or
	// above it); nil for the other actions.
	HeldTrend *HeldTrend `json:"held_trend,omitempty"`
}

// HeldTrend is the wait's trend while on_trap holds demand at a rate.
type HeldTrend struct {
	// Slope and its 95 % interval, seconds of wait per second; null with
	// too few settled samples.
	Slope   *float64 `json:"slope"`
	SlopeLo *float64 `json:"slope_lo"`
	SlopeHi *float64 `json:"slope_hi"`
	// Falling: the interval lies below zero (the service is on its way
	// back); NotFalling: it excludes a falling wait (it stays failed).
	// Both false: the trend could not tell.
	Falling    bool   `json:"falling"`
	NotFalling bool   `json:"not_falling"`
	Reason     string `json:"reason"`
}

// Num returns a pointer to x, or nil when x is NaN or infinite, for the
// nullable numbers of the result document.
func Num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Value reads a nullable number back: NaN for nil.
func Value(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// StopRecord is a brake that stopped a run's load: a stop condition that
// fired or could not be evaluated, or the abort file.
type StopRecord struct {
	// By names the brake: "stop_when.NAME" or "abort_file".
	By     string `json:"by"`
	Reason string `json:"reason"`
	// AtS is when it fired, seconds since the load started; 0 when it
	// fired in the preflight, before any load was sent.
	AtS float64 `json:"at_s"`
}

// RunSpread summarizes repeated request-level runs of one scenario with
// different seeds: how the verdict and the recovery time vary with the
// luck of arrivals and service times.
type RunSpread struct {
	Runs int `json:"runs"`
	// FirstSeed is the first run's seed; run i used FirstSeed + i.
	FirstSeed uint64 `json:"first_seed"`
	// ShownSeed is the seed of the run the document shows: the median run
	// by recovery time (the lower median for an even count).
	ShownSeed uint64          `json:"shown_seed"`
	Verdicts  map[Verdict]int `json:"verdicts"`
	// TrappedFraction is the fraction of runs judged trapped.
	TrappedFraction float64 `json:"trapped_fraction"`
	// Trapped is the same count with its Wilson 95 % interval: the model's
	// P(trap) for this test (docs/model.md, "Trap probability").
	Trapped Proportion `json:"trapped"`
	// RecoveredFraction is the fraction of runs that recovered.
	RecoveredFraction float64 `json:"recovered_fraction"`
	// RecoveryMinS, RecoveryMedianS and RecoveryMaxS are seconds from the
	// spike's end, over every run, a run that did not recover counting as
	// infinitely slow (null).
	RecoveryMinS    *float64 `json:"recovery_min_s"`
	RecoveryMedianS *float64 `json:"recovery_median_s"`
	RecoveryMaxS    *float64 `json:"recovery_max_s"`
	// PeakWaitMinS and PeakWaitMaxS bound the runs' peak waits, seconds.
	PeakWaitMinS float64 `json:"peak_wait_min_s"`
	PeakWaitMaxS float64 `json:"peak_wait_max_s"`
}

// FaultOutcome is a run's fault: when its start command ended and its
// stop command began (seconds since the load started; null when they did
// not), whether the stop succeeded, and, when it did not, Error with the
// command to run by hand (the fault may still be in place).
type FaultOutcome struct {
	Name     string   `json:"name"`
	StartedS *float64 `json:"started_s"`
	StoppedS *float64 `json:"stopped_s"`
	Restored bool     `json:"restored"`
	Error    string   `json:"error,omitempty"`
}

// RequestResult is one request of a target's mix over a run.
type RequestResult struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	// ExpectedShare is Weight over the mix's total; Share is the request's
	// part of the first attempts sent.
	ExpectedShare float64 `json:"expected_share"`
	Share         float64 `json:"share"`
	FirstSent     float64 `json:"first_sent"`
	FirstOK       float64 `json:"first_ok"`
	FirstFailed   float64 `json:"first_failed"`
	// SuccessRatio is FirstOK over the request's first attempts completed;
	// null when none completed.
	SuccessRatio float64 `json:"success_ratio"`
	// The failed first attempts by class, as the timeline's First* columns.
	FirstTimeouts     float64 `json:"first_timeouts"`
	FirstErrors       float64 `json:"first_errors"`
	FirstConnect      float64 `json:"first_connect"`
	FirstClientErrors float64 `json:"first_client_errors"`
	FirstOther        float64 `json:"first_other"`
}

// SustainingEffect names what holds a failed service down (docs/model.md,
// "Latency laws and what sustains a trap").
type SustainingEffect string

const (
	// SustainedByRetries: the work arriving once every attempt fails,
	// A·λ, is at least the capacity the service had before.
	SustainedByRetries SustainingEffect = "retries"
	// SustainedByLostCapacity: the service serves less in the failed state
	// than before (garbage collection, cache misses, contention), and the
	// work arriving is below the capacity it had before.
	SustainedByLostCapacity SustainingEffect = "lost_capacity"
	// SustainedByBoth: the capacity fell, and the retries fill what is left.
	SustainedByBoth SustainingEffect = "both"
	// SustainedByNotKnown: what the run measured does not tell (Note says
	// what is missing).
	SustainedByNotKnown SustainingEffect = "not_known"
)

// Sustaining is the `observation.sustained_by` section: what held the
// service down, with the capacities and the work arriving it is named from.
type Sustaining struct {
	Effect SustainingEffect `json:"effect"`
	// CapacityBeforePerS is what the service served while work waited
	// before it failed (the driver's successes in the spike's busy
	// seconds), or the law's or the scenario's C; CapacityBeforeFrom says which.
	CapacityBeforePerS *float64 `json:"capacity_before_per_s"`
	CapacityBeforeFrom string   `json:"capacity_before_from"`
	// CapacityFailedPerS is what it served in the failed state (its served
	// query, every attempt failing); null when not measured.
	CapacityFailedPerS *float64 `json:"capacity_failed_per_s"`
	// ArrivingPerS is the work arriving in the failed state, A·λ, with
	// the A it used (ArrivingFrom).
	ArrivingPerS *float64 `json:"arriving_per_s"`
	ArrivingFrom string   `json:"arriving_from"`
	DemandPerS   *float64 `json:"demand_per_s"`
	Note         string   `json:"note"`
}

// Advice is what the document advises: a run's own advice when it has
// one, else the plan's recommendations.
func (d Document) Advice() []string {
	if o := d.Observation; o != nil && o.Advice != nil {
		return o.Advice
	}
	return d.Prediction.Recommendations
}
