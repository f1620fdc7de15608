package infer

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// Cohort is what became of the logical requests whose first attempts were
// sent in one second of a run (analysis.Cohort).
type Cohort = analysis.Cohort

// RunFacts are what the runner knows about a run besides its timeline.
type RunFacts struct {
	// SpikeStartS and SpikeEndS delimit the spike, seconds since the run started.
	SpikeStartS, SpikeEndS float64
	TimeoutS               float64 // τ_out, the clients' patience
	// PatienceS is the shortest patience in front of the service: τ_out,
	// or a layer's shorter per-try timeout (Patience).
	PatienceS  float64
	Multiplier float64 // k
	// FaultCapacity is C′/C of the run's capacity trigger, 0 for a spike:
	// the window SpikeStartS–SpikeEndS is then the fault's.
	FaultCapacity float64
	// SuccessRatio is the recovery threshold of the first-attempt success
	// ratio (0.99 by default); a second failing more than 1 − SuccessRatio
	// of its first attempts is a failed second.
	SuccessRatio float64
	// RetrySettleS is how long after the spike the clients' retry streams
	// take to reach the failed state's rates: about R·(τ_out + mean backoff).
	RetrySettleS float64
	// IngressLagS is how far back the ingress (and first-attempts) query
	// looks: its range window, offset and scrape interval. A rate read at t
	// holds only the state of [t − IngressLagS, t].
	IngressLagS float64
	// IngressRangeS is the ingress query's range window alone: the driver's
	// first attempts are averaged over the same window, so that A_fail is a
	// ratio of the same kind of rate.
	IngressRangeS float64
	// IngressResolutionS is the scrape interval of the ingress query's
	// series: one independent value per scrape.
	IngressResolutionS float64
	// FailedToS ends the window over which the failed state is measured:
	// the recovery, an on_trap action, or the end of the run.
	FailedToS float64
	// BaselineToS ends the baseline demand after the spike (an on_trap
	// action that changes it, or the end of the run: +Inf); zero means the
	// spike's end (only the warmup counts).
	BaselineToS float64
	// RecoveryS is the measured recovery time from the spike's end (NaN if none).
	RecoveryS float64
	// ScenarioCapacityPerS is the scenario's C, used when the service's
	// served rate is unknown; ScenarioDemandPerS is its λ, used when the run
	// measured no baseline (no warmup).
	ScenarioCapacityPerS, ScenarioDemandPerS float64
	// Cohorts are the driver's cohorts, as they stood when the run stopped
	// the load (requests still open then were cut short and are not used).
	Cohorts []Cohort
	// Wait is the run's judgement of the wait's trend: its slope is the one
	// slope of the run.
	Wait analysis.Judgement
	// SlopeNotFailed says why the wait's trend was not fitted in a failed
	// state ("" when it was): A = (slope + 1)/ρ holds only while every
	// attempt fails, the wait above the patience.
	SlopeNotFailed string
	// LawNotQueue says why the queue's forms do not hold for this service
	// ("" when they do): its latency law, fitted from the run's healthy
	// seconds, is not the queue's. A from the slope, A from the recovery
	// time and the predicted recovery are then not reported.
	LawNotQueue string
	// Trapped says that the run judged the service trapped: a bound on A
	// from a counter behind the queue is then a lower bound.
	Trapped bool
	// ClientAmplification is the clients' A as the scenario declares it,
	// used for the tracers' share of the ingress while A_client is not
	// counted; ScenarioAmplification is the scenario's whole A (every
	// declared layer), the recovery's prediction when nothing measured A.
	ClientAmplification, ScenarioAmplification float64
}

// fullyFailedRatio is the most a second's first-attempt success ratio may
// be for the second to count as "every attempt fails", where A is defined.
const fullyFailedRatio = 0.05

// Inference is what a run's timeline says about the model's parameters
// (docs/model.md, "What a trigger test measures", item 4). Unknown values
// are NaN; every estimate carries its 95 % interval where the data give one.
type Inference struct {
	BaselinePerS float64 // λ: first attempts sent per second at baseline, before and after the spike
	// Multiplier is k as sent: the spike's first-attempt rate over λ.
	Multiplier   float64
	CapacityPerS float64 // C: served rate while every attempt fails
	// CapacitySource is "served" (measured) or "scenario" (assumed), and
	// CapacityNote says why the scenario's value was assumed.
	CapacitySource, CapacityNote string
	Utilization                  float64 // ρ = λ/C
	// FailedFromS and FailedToS delimit the settled failed window after the
	// spike that A_fail and C were measured over: from the moment the
	// ingress query holds only the failed state after the spike to the end
	// of the failed state (the first second whose first attempts succeed
	// again, an on_trap action, the end). NaN when the window is empty.
	FailedFromS, FailedToS float64
	// AClient is attempts the clients sent per logical request, over the
	// cohorts whose every attempt failed (docs/model.md, "What a trigger
	// test measures", item 4).
	AClient Interval
	// AFail is attempts arriving at the service per first attempt in the
	// settled failed window: ingress / first attempts (tracers left out).
	// Unknown when it is not a measurement (a counter behind the queue,
	// see reconcile); AFailNote then says why, AFailCounted keeps what the
	// counters read, and AFailAtLeast or AFailAtMost the bound it is (NaN
	// when none).
	AFail                     Interval
	AFailNote                 string
	AFailCounted              Interval
	AFailAtLeast, AFailAtMost float64
	// LostBeforeCounter is the share of the clients' attempts that never
	// reached the ingress counter (A_fail below what the driver counted
	// the clients send, by more than a tenth): lost before the service,
	// not a layer; 0 when none or unknown.
	LostBeforeCounter float64
	// Hidden is AFail/AClient: retries by layers the clients do not see;
	// unknown unless A_fail is measured and no other estimate contradicts
	// it, and never below 1 (HiddenNote says why it is not claimed).
	Hidden     Interval
	HiddenNote string
	// A is the amplification the run stands by, AFrom which estimate it is
	// (FromAFail, FromSlope, FromRecovery; "" when none), ANote why, and
	// which estimates disagree with it.
	A     Interval
	AFrom string
	ANote string
	// WaitSlope is the judged trend's slope (A·ρ − 1 in the failed state).
	WaitSlope Interval
	// AFromSlopeNote says why A from the slope is not reported ("" when
	// it is, or no slope was fitted).
	AFromSlopeNote string
	// AFromSlope is A from the wait's slope (slopeAmplification); only
	// from a wait measured on its own
	// (the service's wait gauge, tracers): the slope of ingress − served
	// would restate A_fail.
	AFromSlope Interval
	// AFromRecovery inverts the full recovery-time form at the measured ρ;
	// AFromRecoveryNote says why it is not reported ("" when it is, or
	// nothing recovered).
	AFromRecovery     Interval
	AFromRecoveryNote string
	// PredictedRecoveryS is the full closed form at the A the run stands by
	// (never A from the recovery itself), else the scenario's, at the
	// measured ρ and t0; PredictedFrom names the A it used.
	PredictedRecoveryS Interval
	// PredictedNote says why no recovery is predicted ("" when one is).
	PredictedNote string
	PredictedFrom string
	PredictedA    float64
	// T0S is when the wait crossed the patience, seconds after the spike
	// started, as measured (NaN when nothing failed); T0Source says from
	// what: "cohorts" (the first attempts sent before it succeeded) or
	// "outcomes" (when failures completed, less their latency).
	T0S      float64
	T0Source string
}

// capacityUnmeasured says why an estimate that rests on C is not
// reported when C is not the served rate the run measured.
const capacityUnmeasured = "the scenario's (the run read no served rate in a settled failed window), not a measurement"

// within reports whether the second r lies in [lo, hi), judged by its middle.
func within(r analysis.TimelineRow, lo, hi float64) bool {
	mid := r.TS + 0.5
	return mid >= lo && mid < hi
}

// meanOver is the mean of f over the rows within [lo, hi) where f is not NaN.
func meanOver(rows []analysis.TimelineRow, lo, hi float64, f func(analysis.TimelineRow) float64) float64 {
	return meanIn(rows, [][2]float64{{lo, hi}}, f)
}

// Infer estimates λ, C, ρ and A from a run's timeline, and predicts the
// recovery time from them (docs/model.md, "What a trigger test measures",
// item 4). No estimate uses data that still carries the spike.
func Infer(rows []analysis.TimelineRow, f RunFacts) Inference {
	nan := math.NaN()
	if f.SuccessRatio <= 0 {
		f.SuccessRatio = vocab.DefaultSuccessRatio
	}
	if f.PatienceS <= 0 {
		f.PatienceS = f.TimeoutS
	}
	if f.BaselineToS == 0 {
		f.BaselineToS = f.SpikeEndS
	}
	in := Inference{FailedFromS: nan, FailedToS: nan, PredictedA: nan, AClient: unknownInterval(), AFail: unknownInterval(), Hidden: unknownInterval(),
		AFailCounted: unknownInterval(), AFailAtLeast: nan, AFailAtMost: nan, A: unknownInterval(),
		WaitSlope: unknownInterval(), AFromSlope: unknownInterval(), AFromRecovery: unknownInterval(), PredictedRecoveryS: unknownInterval()}
	// λ is the intensity of the driver's baseline arrivals: every second at
	// baseline counts, the observation's as much as the warmup's (a Poisson
	// count over ten seconds is ±8 % off its rate, and ρ near 1/A moves the
	// recovery time as 1/(1 − A·ρ)).
	sent := func(r analysis.TimelineRow) float64 { return r.Sent }
	in.BaselinePerS = meanIn(rows, [][2]float64{{1, f.SpikeStartS}, {f.SpikeEndS + 1, f.BaselineToS}}, sent)
	if math.IsNaN(in.BaselinePerS) {
		in.BaselinePerS = meanOver(rows, 0, f.SpikeStartS, sent)
	}
	if math.IsNaN(in.BaselinePerS) || in.BaselinePerS <= 0 {
		in.BaselinePerS = f.ScenarioDemandPerS
	}
	in.Multiplier = meanOver(rows, f.SpikeStartS, f.SpikeEndS, func(r analysis.TimelineRow) float64 { return r.Sent }) / in.BaselinePerS

	in.T0S, in.T0Source = cohortT0(f.Cohorts, driverLostSeconds(rows, f.TimeoutS), f.SpikeStartS, f.SuccessRatio), "cohorts"
	if math.IsNaN(in.T0S) {
		in.T0S, in.T0Source = firstFailure(rows, f.SpikeStartS, f.TimeoutS, f.SuccessRatio), "outcomes"
	}
	if math.IsNaN(in.T0S) {
		in.T0Source = ""
	}
	windows := settledFailedWindows(rows, f, in.T0S)
	if n := len(windows); n > 0 && windows[n-1][0] >= f.SpikeEndS {
		in.FailedFromS, in.FailedToS = windows[n-1][0], windows[n-1][1]
	}
	in.CapacityPerS = meanIn(rows, capacityWindows(windows, f), func(r analysis.TimelineRow) float64 { return r.ServedPerS })
	in.CapacitySource = "served"
	if math.IsNaN(in.CapacityPerS) || in.CapacityPerS <= 0 {
		in.CapacityPerS, in.CapacitySource = f.ScenarioCapacityPerS, "scenario"
		in.CapacityNote = "no served query: the scenario's value"
		if hasColumn(rows, func(r analysis.TimelineRow) float64 { return r.ServedPerS }) {
			in.CapacityNote = "the scenario's value: the served rate was never read in a settled failed window"
		}
	}
	in.Utilization = in.BaselinePerS / in.CapacityPerS

	in.AClient = cohortAmplification(f.Cohorts, f.SpikeStartS)
	aClient := in.AClient.Value
	if !in.AClient.Known() {
		aClient = f.ClientAmplification
	}
	in.AFail = failedAmplification(rows, windows, f, aClient)
	if j := f.Wait; j.Trend.N >= 2 {
		in.WaitSlope = Interval{Value: j.Trend.Slope, Lo: j.SlopeLo, Hi: j.SlopeHi, N: j.Trend.N}
		switch {
		case j.Source != analysis.WaitFromService && j.Source != analysis.WaitFromTracers:
		case f.LawNotQueue != "":
			in.AFromSlopeNote = "not reported: " + f.LawNotQueue + ", where the slope is not A·ρ − 1"
		case f.SlopeNotFailed != "":
			in.AFromSlopeNote = "not reported: the slope was not fitted in a failed state (" + f.SlopeNotFailed + "), where (slope + 1)/ρ would be A"
		case in.CapacitySource != "served":
			in.AFromSlopeNote = "not reported: C is " + capacityUnmeasured + ", and A = ((slope + 1)·C − tracers)/λ would carry its error"
		default:
			in.AFromSlope = slopeAmplification(rows, f, j, in)
			if note := noAmplification(in.AFromSlope); note != "" {
				in.AFromSlope, in.AFromSlopeNote = unknownInterval(), note
			}
		}
	}

	k := in.Multiplier
	if math.IsNaN(k) {
		k = f.Multiplier
	}
	spike, patience, rho := f.SpikeEndS-f.SpikeStartS, f.PatienceS, in.Utilization
	// The recovery-time form at the measured t0 when there is one: for a
	// short spike Δ − t0 decides the recovery time, and t0 depends on the
	// patience in front of the service, which the run may not know.
	t0 := in.T0S
	if !(t0 < spike) {
		t0 = analysis.TriggerTime(k, rho, patience)
		if f.FaultCapacity > 0 {
			t0 = analysis.TriggerTime(1/f.FaultCapacity, rho, patience)
		}
	}
	// Tracers load the service too: each is one attempt, multiplied by
	// the layers in front of it as the clients' are (failedAmplification),
	// so the work arriving per first attempt is A·load, and the recovery's
	// form is evaluated (and inverted) at it.
	load := tracerLoad(rows, f, aClient, in.BaselinePerS)
	if f.LawNotQueue != "" {
		in.AFromRecoveryNote = "not reported: " + f.LawNotQueue + ", for which the recovery-time formula (the queue's) does not hold"
		in.PredictedNote = in.AFromRecoveryNote
	}
	if !math.IsNaN(f.RecoveryS) && f.FaultCapacity == 0 && f.LawNotQueue == "" && in.CapacitySource != "served" {
		in.AFromRecoveryNote = "not reported: ρ rests on C, which is " + capacityUnmeasured
	}
	if !math.IsNaN(f.RecoveryS) && f.FaultCapacity == 0 && f.LawNotQueue == "" && in.CapacitySource == "served" {
		// The recovery is known to the second: invert at its two ends.
		// (After a fault the recovery's form is not inverted: no A from it.)
		fromRecovery := func(t float64) float64 {
			return analysis.AmplificationFromRecoveryAfter(t, rho, k, spike, t0, patience) / load
		}
		in.AFromRecovery = Interval{Value: fromRecovery(f.RecoveryS), Lo: fromRecovery(math.Max(0, f.RecoveryS-1)), Hi: fromRecovery(f.RecoveryS + 1), N: 1}
	}
	reconcile(&in, rows, f)
	a, from := in.A, in.AFrom
	if from == FromRecovery || !a.Known() {
		a, from = Interval{Value: f.ScenarioAmplification, Lo: nan, Hi: nan}, FromScenario
	}
	if a.Known() && a.Value > 0 && f.LawNotQueue == "" {
		predict := func(a float64) float64 { return analysis.RecoveryTimeAfter(a*load, rho, k, spike, t0, patience) }
		if fc := f.FaultCapacity; fc > 0 {
			predict = func(a float64) float64 { return analysis.FaultRecoveryAfter(a*load, rho, fc, spike, t0, patience) }
		}
		in.PredictedRecoveryS = Interval{Value: predict(a.Value), Lo: predict(a.Lo), Hi: predict(a.Hi), N: a.N}
		in.PredictedFrom, in.PredictedA = from, a.Value
	}
	return in
}

// tracerLoad is the factor by which the tracers add to the work arriving
// per first attempt: 1 + tracers/(λ·A_client), the tracers' rate taken over
// the baseline (1 without tracers or without λ).
func tracerLoad(rows []analysis.TimelineRow, f RunFacts, aClient, lambda float64) float64 {
	tracers := meanIn(rows, [][2]float64{{1, f.SpikeStartS}, {f.SpikeEndS + 1, f.BaselineToS}}, func(r analysis.TimelineRow) float64 { return r.TracersSent })
	if math.IsNaN(tracers) || tracers <= 0 || !(lambda > 0) {
		return 1
	}
	if math.IsNaN(aClient) || aClient <= 0 {
		aClient = 1
	}
	return 1 + tracers/(lambda*aClient)
}

// slopeAmplification is A from the judged wait's slope: in the failed
// state work arrives at A·λ (plus the tracers) and leaves at C, so the
// wait changes at (A·λ + tracers − C)/C, and A = ((slope + 1)·C −
// tracers)/λ. λ and the tracers are the driver's own, over the window
// the slope measured (the fit's samples, and before them the time the
// clients' retries take to arrive): a few seconds of Poisson arrivals
// can be 15 % off the baseline's mean, and the wait follows them, not
// the mean; the interval adds λ's own Poisson uncertainty over the window
// to the slope's. Without the window it is (slope + 1)/ρ.
func slopeAmplification(rows []analysis.TimelineRow, f RunFacts, j analysis.Judgement, in Inference) Interval {
	iv := Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: j.Trend.N}
	of := func(slope float64) float64 { return (slope + 1) / in.Utilization }
	if !math.IsNaN(j.FitFromS) && in.CapacityPerS > 0 {
		lo, hi := j.FitFromS-f.RetrySettleS, j.FitToS+0.5
		lambda := meanOver(rows, lo, hi, func(r analysis.TimelineRow) float64 { return r.Sent })
		tracers := meanOver(rows, lo, hi, func(r analysis.TimelineRow) float64 {
			if math.IsNaN(r.TracersSent) {
				return 0
			}
			return r.TracersSent
		})
		if lambda > 0 {
			if math.IsNaN(tracers) {
				tracers = 0
			}
			// The window's first attempts are a Poisson count: λ itself is
			// known to ±1.96/√count (95 %), which widens the interval.
			r := 1.96 / math.Sqrt(math.Max(1, lambda*(hi-lo)))
			at := func(slope, l float64) float64 { return ((slope+1)*in.CapacityPerS - tracers) / l }
			iv.Value, iv.Lo, iv.Hi = at(j.Trend.Slope, lambda), at(j.SlopeLo, lambda*(1+r)), at(j.SlopeHi, lambda*math.Max(0.1, 1-r))
			return iv
		}
	}
	iv.Value, iv.Lo, iv.Hi = of(j.Trend.Slope), of(j.SlopeLo), of(j.SlopeHi)
	return iv
}

// cohortT0 is t0 measured from the driver's cohorts, seconds after the
// spike started: in the first cohort from the spike's second on whose
// requests failed more often than the threshold allows, the requests that
// still succeeded were sent before the wait crossed the patience, so with
// sends spread evenly over the second t0 ≈ TS + succeeded/first − spike
// start. NaN when no cohort failed.
func cohortT0(cohorts []Cohort, lost func(ts float64) bool, spikeStartS, threshold float64) float64 {
	for _, c := range cohorts {
		if c.TS+1 <= spikeStartS || c.First <= 0 || lost(c.TS) {
			continue
		}
		if ok := c.Succeeded / c.First; ok < threshold {
			return math.Max(0, c.TS+ok-spikeStartS)
		}
	}
	return math.NaN()
}

// driverLostSeconds reports, for a cohort's second, whether the driver's
// own stall or drops may have failed its requests: a second from it to
// one client timeout after it was the driver's (TimelineRow.ByDriver).
func driverLostSeconds(rows []analysis.TimelineRow, timeoutS float64) func(ts float64) bool {
	var lost []float64
	for _, r := range rows {
		if r.ByDriver() {
			lost = append(lost, r.TS)
		}
	}
	return func(ts float64) bool {
		for _, l := range lost {
			if l >= ts && l <= ts+1+timeoutS {
				return true
			}
		}
		return false
	}
}

// settledFailedWindows are the [lo, hi) spans, seconds since the run
// started, over which the service's rates hold only a settled failed state:
// in the spike (from t0, once the retry streams and the query windows hold
// only the failed spike) and after it (once they hold only the failed state
// after the spike), each ending where the failed state ends. A rate read at
// the end of second TS covers [TS + 1 − lag, TS + 1]: that span must lie in
// a settled failed state.
func settledFailedWindows(rows []analysis.TimelineRow, f RunFacts, t0 float64) [][2]float64 {
	lag := f.RetrySettleS + f.IngressLagS
	var out [][2]float64
	if !math.IsNaN(t0) {
		// Rows whose end t satisfies t − lag ≥ spike start + t0, judged by
		// their middle t − 0.5.
		if lo := f.SpikeStartS + t0 + lag - 0.5; lo < f.SpikeEndS-0.5 {
			out = append(out, [2]float64{lo, f.SpikeEndS})
		}
	}
	end := failedStateEnd(rows, f)
	if lo := f.SpikeEndS + lag - 0.5; lo < end-0.5 {
		out = append(out, [2]float64{lo, end})
	}
	return out
}

// capacityWindows are the failed windows whose served rate is C: all of
// them after a spike; after a fault only those after it (during the fault
// the service serves at C′ = FaultCapacity·C, docs/model.md, "A capacity
// trigger", and a ρ measured against C′ would project no recovery at all).
func capacityWindows(windows [][2]float64, f RunFacts) [][2]float64 {
	if f.FaultCapacity <= 0 {
		return windows
	}
	var out [][2]float64
	for _, w := range windows {
		if w[0] >= f.SpikeEndS-0.5 {
			out = append(out, w)
		}
	}
	return out
}

// failedStateEnd is when the fully failed state after the spike ends,
// seconds since the run started: the start of the first second, one
// patience after the spike, whose first attempts succeed more than
// fullyFailedRatio of the time, or FailedToS if earlier.
func failedStateEnd(rows []analysis.TimelineRow, f RunFacts) float64 {
	end := f.FailedToS
	if math.IsNaN(end) {
		end = math.Inf(1)
	}
	for _, r := range rows {
		if r.TS < f.SpikeEndS+f.PatienceS || r.TS >= end {
			continue
		}
		if ratio := r.FirstSuccessRatio(); !math.IsNaN(ratio) && ratio > fullyFailedRatio {
			return r.TS
		}
	}
	if math.IsInf(end, 1) && len(rows) > 0 {
		end = rows[len(rows)-1].TS + 1
	}
	return end
}

// meanIn is the mean of f over the rows within any of the windows (which
// do not overlap), where f is not NaN.
func meanIn(rows []analysis.TimelineRow, windows [][2]float64, f func(analysis.TimelineRow) float64) float64 {
	var sum, n float64
	for _, w := range windows {
		for _, r := range rows {
			if within(r, w[0], w[1]) {
				if v := f(r); !math.IsNaN(v) {
					sum += v
					n++
				}
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n
}

// cohortAmplification is A_client counted exactly: attempts per logical
// request over the cohorts from the spike on whose requests all ended and
// (almost) none succeeded, the clients' amplification once every attempt
// fails. Its interval comes from the spread between cohorts.
func cohortAmplification(cohorts []Cohort, fromS float64) Interval {
	var attempts, first float64
	var ratios []float64
	for _, c := range cohorts {
		if c.TS < fromS || c.First <= 0 || c.Open > 0 || c.Succeeded > 0.01*c.First {
			continue
		}
		attempts += c.Attempts
		first += c.First
		ratios = append(ratios, c.Attempts/c.First)
	}
	if first == 0 {
		return unknownInterval()
	}
	return pointWithSpread(attempts/first, meanInterval(ratios, 1))
}

// failedAmplification is A_fail: attempts arriving at the service per first
// attempt over the settled failed windows. Numerator and denominator are
// the same kind of rate: the service's first-attempt query when there is
// one, else the driver's first attempts averaged over the ingress query's
// own range window. The interval comes from the spread between scrapes,
// widened for the overlap of consecutive rate windows.
//
// Tracers reach the service too, each as one attempt that every layer in
// between multiplies as it does the clients' (A_fail/aClient): so ingress
// = A_fail·(first + tracers/aClient), and the tracers' share is taken
// out that way (aClient NaN or ≤ 0: as if 1).
func failedAmplification(rows []analysis.TimelineRow, windows [][2]float64, f RunFacts, aClient float64) Interval {
	if math.IsNaN(aClient) || aClient <= 0 {
		aClient = 1
	}
	tracers := func(m analysis.TimelineRow) float64 {
		if math.IsNaN(m.TracersSent) {
			return 0
		}
		return m.TracersSent
	}
	width := math.Max(1, f.IngressResolutionS)
	var num, den float64
	var ratios []float64
	for _, w := range windows {
		var bn, bd float64
		bin := math.NaN()
		flush := func() {
			if bd > 0 {
				ratios = append(ratios, bn/bd)
			}
			bn, bd = 0, 0
		}
		for i, r := range rows {
			if !within(r, w[0], w[1]) {
				continue
			}
			first := r.ServiceFirstPerS
			if math.IsNaN(first) {
				first = trailingMean(rows, i, f.IngressRangeS, func(m analysis.TimelineRow) float64 { return m.Sent })
			}
			if math.IsNaN(r.IngressPerS) || math.IsNaN(first) {
				continue
			}
			first += trailingMean(rows, i, f.IngressRangeS, tracers) / aClient
			if b := math.Floor((r.TS - w[0]) / width); b != bin {
				flush()
				bin = b
			}
			num += r.IngressPerS
			den += first
			bn += r.IngressPerS
			bd += first
		}
		flush()
	}
	if den == 0 {
		return unknownInterval()
	}
	return pointWithSpread(num/den, meanInterval(ratios, math.Sqrt(math.Max(1, f.IngressRangeS/width))))
}

// trailingMean is the mean of f over the rows ending at row i that lie in
// the rangeS seconds before its end (row i alone when rangeS ≤ 1).
func trailingMean(rows []analysis.TimelineRow, i int, rangeS float64, f func(analysis.TimelineRow) float64) float64 {
	from := rows[i].TS + 1 - math.Max(1, rangeS)
	var sum, n float64
	for j := i; j >= 0 && rows[j].TS >= from-1e-9; j-- {
		if v := f(rows[j]); !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n
}

// pointWithSpread is the point estimate with the half-widths of the spread's
// interval around it.
func pointWithSpread(point float64, spread Interval) Interval {
	iv := Interval{Value: point, Lo: math.NaN(), Hi: math.NaN(), N: spread.N}
	if spread.Bounded() {
		iv.Lo, iv.Hi = point-(spread.Value-spread.Lo), point+(spread.Hi-spread.Value)
	}
	return iv
}

// FindRecovery returns the first time at or after fromS at which the
// service is back and holds (docs/model.md, "What a trigger test
// measures", item 3), and whether there is one. Back: a second whose
// first-attempt success ratio is at or above threshold. Holds: the first
// attempts of that second and the next ones, holdS seconds of known ratios
// in all (seconds with no completed first attempt, and seconds whose
// outcomes are the driver's own, neither count nor break the hold),
// succeed at threshold or better taken together. One stray failure among
// few first attempts (a timeout in a second of 40 at a 0.99 rule) does
// not restart the hold; a relapse that fails more than the rule allows
// over the hold does.
func FindRecovery(rows []analysis.TimelineRow, fromS, threshold, holdS float64) (float64, bool) {
	var ts, ok, done []float64
	for _, r := range rows {
		if r.TS < fromS || math.IsNaN(r.FirstSuccessRatio()) || r.ByDriver() {
			continue
		}
		ts, ok, done = append(ts, r.TS), append(ok, r.FirstOK), append(done, r.FirstDone)
	}
	if !(holdS <= float64(len(ts))) { // also NaN: never held
		return math.NaN(), false
	}
	n := max(1, int(math.Ceil(holdS)))
	var sumOK, sumDone float64 // over [i, i+n)
	for j := 0; j < min(n, len(ts)); j++ {
		sumOK, sumDone = sumOK+ok[j], sumDone+done[j]
	}
	for i := 0; i+n <= len(ts); i++ {
		if i > 0 {
			sumOK += ok[i+n-1] - ok[i-1]
			sumDone += done[i+n-1] - done[i-1]
		}
		if ok[i] >= threshold*done[i] && sumOK >= threshold*sumDone {
			return ts[i], true
		}
	}
	return math.NaN(), false
}

// Triggered reports whether, at or after fromS, some second failed more of
// its first attempts than the success threshold allows, whatever the
// failure: timed out at the client, answered with an error (a proxy's 504
// before the client's timeout), refused. The spike pushed the service past
// the patience in front of it, or into its defences.
func Triggered(rows []analysis.TimelineRow, fromS, threshold float64) bool {
	for _, r := range rows {
		if r.TS >= fromS && failing(r, threshold) {
			return true
		}
	}
	return false
}

// firstFailure is t0 as measured: when the first failed second's first
// attempts met the wait that failed them, seconds after the spike started
// (NaN when no second failed). Outcomes are counted when attempts complete:
// a timeout τ_out after its attempt met the long wait, a server error after
// its own latency, a refusal at once; the class that dominates the second
// places it.
func firstFailure(rows []analysis.TimelineRow, spikeStartS, timeoutS, threshold float64) float64 {
	for _, r := range rows {
		if r.TS+1 <= spikeStartS || !failing(r, threshold) {
			continue
		}
		latency := 0.0
		switch {
		case r.FirstTimeouts >= r.FirstErrors && r.FirstTimeouts >= r.FirstConnect:
			latency = timeoutS
		case r.FirstErrors >= r.FirstConnect && !math.IsNaN(r.ErrorLatencyP50S):
			latency = r.ErrorLatencyP50S
		}
		return math.Max(0, r.TS+0.5-latency-spikeStartS)
	}
	return math.NaN()
}

// failing is analysis.TimelineRow.Failing, the one definition of a
// failed second.
func failing(m analysis.TimelineRow, threshold float64) bool { return m.Failing(threshold) }

// hasColumn reports whether some row has a value for col.
func hasColumn(rows []analysis.TimelineRow, col func(analysis.TimelineRow) float64) bool {
	for _, r := range rows {
		if !math.IsNaN(col(r)) {
			return true
		}
	}
	return false
}

// noAmplification says why an A from the slope at or below zero is no
// amplification (work arriving at no rate at all, or less: the wait fell
// faster than the capacity drains it, so the queue's law, the wait
// changing at (A·λ − C)/C, did not hold); "" for any other.
func noAmplification(iv Interval) string {
	if !iv.Known() || iv.Value > 0 {
		return ""
	}
	return fmt.Sprintf("not reported: the slope gives A = %.2f, no amplification: the wait fell faster than the service's capacity drains it, so the queue's law did not hold", iv.Value)
}
