// Package referee judges a trigger test from what it recorded: the
// timeline's rows, fed one at a time as the run writes them, and the
// moments the runner tells it of (docs/model.md, "What a trigger test
// measures"; docs/design.md, "The referee"). It has no clock, no I/O and
// no goroutine: a live run and `trigger judge`, which replays a run's
// folder, feed it the same rows and get the same verdict.
package referee

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// stage is where the referee is in the run.
type stage int

const (
	stageWarmup stage = iota
	stageSpikeAsked
	stageSpike
	stageObserve
	stageOnTrap
	stageOver
)

// Referee judges one run. Feed it each row (Add), then ask it (Step) what
// the row decided; tell it what the runner did (SpikeStarted,
// FaultStarted, FaultStopped, OnTrapStarted, Rescraped); Settle once the
// load has stopped and every row is in.
type Referee struct {
	cfg  analysis.RefereeConfig
	plan analysis.Document
	// gate is the gate Fill concludes under: the run's own (cfg.Gate), or
	// another a replay judges the same evidence under (JudgeUnder).
	gate analysis.GateSpec

	rows   []analysis.TimelineRow
	events []analysis.JudgingEvent
	sigs   []analysis.SignalInfo // the signals as they stand (rescraped)
	waits  *waitSources

	stage                stage
	spikeStart, spikeEnd float64 // seconds since the load started; NaN until known
	faultStopS           float64 // NaN until its stop began

	judgement   analysis.Judgement
	choice      choice
	blindLogged map[analysis.WaitSource]bool

	verdict analysis.Verdict
	reason  string
	// observed says that the clients saw the service fail past its
	// recovery budget (observedOutage): the verdict is at least
	// metastable, whatever the wait signals show; "" while they have not.
	observed  string
	recoveryS float64 // from the spike's end; NaN until recovered
	judgedAt  float64 // seconds since the load started; NaN until judged trapped or metastable

	onTrap *onTrap

	// lawCache is the latency law fitted to the first lawRows rows.
	lawCache *analysis.LatencyLaw
	lawRows  int

	inconclusive, kind string
	// stepped is how many rows had been read at the last Step.
	stepped int
	end     analysis.JudgingEnd
	settled bool
}

// The kinds of an inconclusive outcome (Outcome.Kind).
const (
	KindCredentialsRefused = "credentials_refused" // 401/403 in the warmup or mostly after the spike
	KindClientErrors       = "client_errors"       // failures mostly 4xx other than 429
	KindBaselineFailing    = "baseline_failing"    // failing before any spike
	KindTargetRefused      = "target_refused"      // every connection refused in the warmup: the target is down
	KindMetricsMissing     = "metrics_missing"     // Prometheus left too much of the judged window empty
	KindNoVerdict          = "no_verdict"          // the run ended before the evidence could tell
)

// New is a referee for a run whose plan is plan (the plan's document:
// scenario, amplification, prediction) under cfg.
func New(plan analysis.Document, cfg analysis.RefereeConfig) *Referee {
	nan := math.NaN()
	r := &Referee{cfg: cfg, plan: plan, sigs: append([]analysis.SignalInfo(nil), cfg.Signals...),
		spikeStart: nan, spikeEnd: nan, faultStopS: nan, recoveryS: nan, judgedAt: nan, gate: cfg.Gate}
	r.waits = newWaitSources(r.delays(), analysis.Resolutions(r.sigs), plan.Scenario.CapacityPerS)
	return r
}

// delays are the wait sources' delays under the signals as they stand.
func (r *Referee) delays() map[analysis.WaitSource]float64 {
	return analysis.WaitDelays(r.cfg.RetrySettleS, r.sigs, r.cfg.Tracers)
}

// Add takes the run's next second. It fills the columns the referee
// computes (DriverLost, BacklogWaitS) and returns the row as the run
// records it.
func (r *Referee) Add(row analysis.TimelineRow) analysis.TimelineRow {
	row.DriverLost = r.driverLost(row)
	r.waits.add(&row, r.spikeStart)
	r.rows = append(r.rows, row)
	return row
}

// Rows are the rows read so far.
func (r *Referee) Rows() []analysis.TimelineRow { return r.rows }

// driverLost is 1 when row's outcomes are the driver's own: it stalled in
// this second or the one before (attempts whose deadlines passed while it
// did not run time out when it runs again), or dropped first attempts it
// could not send on schedule; 0 otherwise.
func (r *Referee) driverLost(row analysis.TimelineRow) float64 {
	prevStalled := len(r.rows) > 0 && r.rows[len(r.rows)-1].DriverStalledS > 0
	if row.DriverStalledS > 0 || row.Dropped > 0 || prevStalled {
		return 1
	}
	return 0
}

// Decision is what a row decided.
type Decision struct {
	// StartSpike: the warmup is over and the service healthy.
	StartSpike bool
	// StartOnTrap: the service is judged trapped, or seen failing past its
	// budget, and the scenario has an on_trap action.
	StartOnTrap bool
	// Over: the referee has its verdict (or knows the run cannot give
	// one); stop the load.
	Over bool
	// Notes are what the run should log.
	Notes []string
}

// Step judges the rows read so far at now, the end of the newest row
// (seconds since the load started).
func (r *Referee) Step(now float64) Decision {
	var d Decision
	r.stepped = len(r.rows)
	switch r.stage {
	case stageWarmup:
		r.warmup(now, &d)
	case stageSpike:
		if now < r.spikeEnd || r.cfg.FaultS > 0 && math.IsNaN(r.faultStopS) {
			break
		}
		r.stage = stageObserve
		fallthrough
	case stageObserve:
		r.observe(now, &d)
	case stageOnTrap:
		r.watchOnTrap(now, &d)
	}
	if d.Over {
		r.stage = stageOver
	}
	return d
}

// record keeps an event for the replay.
func (r *Referee) record(e analysis.JudgingEvent) {
	e.Rows = len(r.rows)
	r.events = append(r.events, e)
}

// SpikeStarted is the spike under way from startS to endS, seconds since
// the load started (a fault: its planned window; FaultStarted moves the end).
func (r *Referee) SpikeStarted(startS, endS float64) {
	r.record(analysis.JudgingEvent{Kind: analysis.EventSpike, AtS: startS, EndS: endS})
	r.spikeStart, r.spikeEnd = startS, endS
	r.stage = stageSpike
}

// FaultStarted is the fault in place at atS: it holds FaultS from then.
func (r *Referee) FaultStarted(atS float64) {
	r.record(analysis.JudgingEvent{Kind: analysis.EventFaultStarted, AtS: atS})
	r.spikeEnd = atS + r.cfg.FaultS
}

// FaultStopped is the fault's stop begun at atS.
func (r *Referee) FaultStopped(atS float64) {
	r.record(analysis.JudgingEvent{Kind: analysis.EventFaultStopped, AtS: atS})
	r.faultStopS = atS
}

// OnTrapStarted is the on_trap action under way from atS.
func (r *Referee) OnTrapStarted(atS float64) {
	r.record(analysis.JudgingEvent{Kind: analysis.EventOnTrap, AtS: atS})
	r.onTrap = newOnTrap(atS)
	r.stage = stageOnTrap
}

// Rescraped is a signal's scrape interval read again once its series
// appeared: the wait sources' delays and resolutions follow it.
func (r *Referee) Rescraped(signal string, scrapeS float64, from string) {
	r.record(analysis.JudgingEvent{Kind: analysis.EventScrape, Signal: signal, ScrapeS: scrapeS, ScrapeFrom: from})
	for i := range r.sigs {
		if r.sigs[i].Name == signal {
			r.sigs[i].ScrapeIntervalS, r.sigs[i].ScrapeIntervalFrom = scrapeS, from
			r.sigs[i].DelayS = r.cfg.RetrySettleS + r.sigs[i].LagS()
		}
	}
	r.waits.retune(r.delays(), analysis.Resolutions(r.sigs))
}

// Signals are the run's signals as they stand.
func (r *Referee) Signals() []analysis.SignalInfo { return r.sigs }

// Spike is the spike's start and end, seconds since the load started
// (NaN before it).
func (r *Referee) Spike() (startS, endS float64) { return r.spikeStart, r.spikeEnd }

// OnTrapAt is when the on_trap action started (NaN: it did not).
func (r *Referee) OnTrapAt() float64 {
	if r.onTrap == nil {
		return math.NaN()
	}
	return r.onTrap.at
}

// Verdict is the verdict so far and its reason ("" while none).
func (r *Referee) Verdict() (analysis.Verdict, string) { return r.verdict, r.reason }

// Phase is the run's phase as the referee sees it.
func (r *Referee) Phase() analysis.Phase {
	switch r.stage {
	case stageSpike:
		return analysis.PhaseSpike
	case stageObserve:
		return analysis.PhaseObserve
	case stageOnTrap:
		return analysis.PhaseOnTrap
	case stageOver:
		if r.onTrap != nil {
			return analysis.PhaseOnTrap
		}
		if !math.IsNaN(r.spikeStart) {
			return analysis.PhaseObserve
		}
	}
	return analysis.PhaseWarmup
}

// JudgeUnder makes Fill conclude under gate instead of the run's own. The
// run's decisions (when it judged, when it stopped) were made under its
// own gate and stand: the evidence is what it is, the gate says what it
// is worth.
func (r *Referee) JudgeUnder(gate analysis.GateSpec) { r.gate = gate }

// Record is what the referee read besides the rows, for result.json.
func (r *Referee) Record() *analysis.JudgingRecord {
	return &analysis.JudgingRecord{Version: analysis.JudgingVersion, Config: r.cfg, Events: r.events, End: r.end, Rows: len(r.rows), Stepped: r.stepped}
}
