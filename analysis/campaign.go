package analysis

import (
	"math"
	"slices"
)

// CampaignDocument is campaign.json: what `trigger campaign` measured, cell
// by cell, and the boundary it bracketed at each baseline (docs/model.md,
// "Mapping the boundary"; docs/design.md, "campaign.json"). It is written
// after every cell, so an interrupted campaign leaves every finished one.
type CampaignDocument struct {
	// Scenario is the scenario's name, file, test hash and target.
	Scenario CampaignScenario `json:"scenario"`
	// Search is what varies ("multiplier" or "duration"); From, To and
	// Precision are the campaign block's (a multiplier, or seconds).
	Search    string  `json:"search"`
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Precision float64 `json:"precision"`
	// Hysteresis: the campaign also looks for the recovery demand λ_r.
	Hysteresis bool `json:"hysteresis"`
	// Trials is the campaign's `trials`, the most trials a trigger cell
	// may take (a cell decided sooner took fewer: its own Trials say how
	// many); absent for one trial a cell. TrapProbability is the level of
	// P(trap) searched for (trap_probability), absent without trials or
	// --tipping.
	Trials          int     `json:"trials,omitempty"`
	TrapProbability float64 `json:"trap_probability,omitempty"`
	// Tipping: `trigger campaign --tipping` asked for the model's
	// P(trap) curve over the searched range (CampaignOdds.ModelCurve).
	Tipping bool `json:"tipping,omitempty"`
	// ExpectedSpike is what production brings; nil when not given.
	ExpectedSpike *ExpectedSpikeSection `json:"expected_spike,omitempty"`
	StartedAt     string                `json:"started_at"`
	EndedAt       string                `json:"ended_at,omitempty"`
	Cells         []CampaignCell        `json:"cells"`
	Baselines     []CampaignBaseline    `json:"baselines"`
	// StoppedReason is why the campaign ended: "finished" when every
	// search reached its end, otherwise what stopped it (an interrupt, a
	// brake, max_duration, a service that did not come back).
	StoppedReason string `json:"stopped_reason"`
	// Gate is min_trigger_margin's verdict; nil without one.
	Gate *CampaignGate `json:"gate,omitempty"`
	// CapacityMeasuredPerS is the median C the trigger cells measured (the
	// served rate when busy); null when none did. The measured model's
	// boundaries use it with the measured A_fail: at a baseline of
	// nominal ρ the service is really at λ/C_measured.
	CapacityMeasuredPerS *float64 `json:"capacity_measured_per_s"`
}

// CampaignScenario identifies the campaign's scenario.
type CampaignScenario struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Hash string `json:"hash,omitempty"`
	// Target is the target's scheme and host.
	Target string `json:"target,omitempty"`
	// CapacityPerS is the scenario's C; TimeoutS its τ_out; AmplificationPlanned
	// the A its retry policies give (A_fail).
	CapacityPerS         float64 `json:"capacity_per_s"`
	TimeoutS             float64 `json:"timeout_s"`
	AmplificationPlanned float64 `json:"amplification_planned"`
	// Multiplier and SpikeS are the scenario's own spike: the fixed half of
	// the search (Δ for a multiplier search, k for a duration search).
	Multiplier float64 `json:"multiplier"`
	SpikeS     float64 `json:"spike_s"`
	// Law is the service's latency law when the scenario declares one
	// (service.latency_law, latency_floor); nil: the queue with no floor.
	Law *LatencyLaw `json:"latency_law,omitempty"`
}

// Median is the median of xs; NaN for none. xs is left as it is.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// SmallestTrap is the model's smallest trapping size of a search
// ("multiplier", "duration" or "capacity") at utilization rho with
// amplification a, for the scenario's fixed half of the trigger: +Inf
// where no size traps (docs/model.md, "Mapping the boundary").
func (sc CampaignScenario) SmallestTrap(search string, a, rho float64) float64 {
	if l := sc.Law; l != nil && l.CapacityPerS > 0 && (l.FloorS > 0 || !l.Queue()) && search != "capacity" {
		return sc.smallestTrapUnder(search, *l, a, rho)
	}
	switch search {
	case "duration":
		return ModelSmallestDuration(a, rho, sc.Multiplier, sc.TimeoutS)
	case "capacity":
		return ModelSmallestCapacityLoss(a, rho, sc.SpikeS, sc.TimeoutS)
	}
	return ModelSmallestMultiplier(a, rho, sc.SpikeS, sc.TimeoutS)
}

// ExpectedSpikeSection is expected_spike: k and Δ production brings.
type ExpectedSpikeSection struct {
	Multiplier float64 `json:"multiplier"`
	DurationS  float64 `json:"duration_s"`
}

// CampaignCell kinds.
const (
	// CellTrigger is a trigger test at a baseline with one spike size.
	CellTrigger = "trigger"
	// CellRecoveryDemand traps the service, then holds demand at one
	// rate to see whether it comes back (hysteresis).
	CellRecoveryDemand = "recovery_demand"
)

// CampaignCell is one whole trigger test of the campaign.
type CampaignCell struct {
	Index int    `json:"index"`
	Kind  string `json:"kind"`
	// Rho is the baseline's utilization; DemandPerS its λ.
	Rho        float64 `json:"rho"`
	DemandPerS float64 `json:"demand_per_s"`
	// Size is the searched size (a multiplier or seconds); Multiplier and
	// SpikeS the spike the cell drove.
	Size       float64 `json:"size"`
	Multiplier float64 `json:"multiplier"`
	SpikeS     float64 `json:"spike_s"`
	// HoldDemandPerS is, for a recovery_demand cell, the demand held after
	// the trap; null otherwise.
	HoldDemandPerS *float64 `json:"hold_demand_per_s"`
	Verdict        Verdict  `json:"verdict"`
	// Trapped says on which side of the boundary the cell fell: the spike
	// left the service failed (trigger), or it stayed failed at the held
	// demand (recovery_demand). Null when the cell could not tell.
	Trapped *bool `json:"trapped"`
	// RecoveryS is the run's recovery time; for a recovery_demand cell the
	// time from holding the demand until the service was back.
	RecoveryS *float64 `json:"recovery_s"`
	// ProjectedRecoveryS is, for a cell still recovering when its run
	// ended (metastable), the recovery its wait's trend projects, seconds
	// after the spike; null otherwise.
	ProjectedRecoveryS *float64 `json:"projected_recovery_s"`
	// AFail is the run's measured amplification, A_fail; CapacityPerS the
	// C it measured (null when it took the scenario's).
	AFail        *float64 `json:"a_fail"`
	CapacityPerS *float64 `json:"capacity_per_s"`
	// Folder is the cell's run folder, relative to the campaign's.
	Folder string `json:"folder"`
	// Note says why a cell could not tell, or what else happened.
	Note string `json:"note,omitempty"`
	// Odds, with campaign trials (or --tipping): the cell's trials, each
	// a run folder of its own (the cell's verdict, recovery, folder and
	// note are its last trial's, its A_fail the median of its trapped
	// trials'); TrapProbability the share of the trials that could tell
	// which trapped, with its Wilson 95 % interval; Side where the
	// sequential rule put the cell against the level ("above": the
	// trapped side, "below", "undecided": its trials could not tell it
	// from the level); ModelTrapProbability the request-level model's
	// P(trap) for the cell's scenario (the trap_probability section its
	// runs' documents carry), ModelNote why it is missing.
	Trials               []CampaignTrial `json:"trials,omitempty"`
	TrapProbability      *Proportion     `json:"trap_probability,omitempty"`
	Side                 string          `json:"side,omitempty"`
	ModelTrapProbability *Proportion     `json:"model_trap_probability,omitempty"`
	ModelNote            string          `json:"model_note,omitempty"`
}

// CampaignTrial is one trial of a repeated cell: its own run.
type CampaignTrial struct {
	// Trial counts from 1; Seed is its run's seed (the campaign's + trial − 1).
	Trial   int     `json:"trial"`
	Seed    uint64  `json:"seed"`
	Verdict Verdict `json:"verdict"`
	// Trapped: the run judged the service trapped; null when it could
	// not tell.
	Trapped   *bool    `json:"trapped"`
	RecoveryS *float64 `json:"recovery_s"`
	AFail     *float64 `json:"a_fail"`
	Folder    string   `json:"folder"`
	Note      string   `json:"note,omitempty"`
}

// CampaignOdds is a baseline's boundary at a level of P(trap)
// (docs/model.md, "Mapping the boundary"): where the tipping curve
// fitted to all its trigger trials crosses the level, with the interval
// of that crossing (on separated trials the penalized fit's); or, when no
// curve stands (FitNote), the cell its trials could not tell from the
// level, or the smallest size above it, with the largest size below and
// the smallest above as the interval.
type CampaignOdds struct {
	// Level is the P(trap) searched for.
	Level float64 `json:"level"`
	// Boundary is the size at the level and BoundaryLo/Hi its interval
	// (null where unknown); Source is "fit", "penalized fit", "cell" or
	// "bracket".
	Boundary   *float64 `json:"boundary"`
	BoundaryLo *float64 `json:"boundary_lo"`
	BoundaryHi *float64 `json:"boundary_hi"`
	Source     string   `json:"source"`
	// Fit is the tipping curve in ln size (P = 1/(1 + e^−(a + b·ln size)));
	// null with FitNote saying why (FitNote also says when the penalized
	// fit stands in).
	Fit     *TippingFit `json:"fit"`
	FitNote string      `json:"fit_note,omitempty"`
	// Trials and Cells are the trigger trials and cells run at this
	// baseline.
	Trials int `json:"trials"`
	Cells  int `json:"cells"`
	// ModelBoundary is where the request-level model's P(trap) crosses
	// the level, by bisection of its odds (as ModelTrapProbability's, at
	// every size) over the searched range to the campaign's precision or
	// 1 %, whichever is narrower; null with
	// ModelNote saying why. ModelCurve is every size the model's odds were
	// taken at (the bisection's and, with --tipping, a grid over the
	// range), by size; ModelSeconds the wall time they took.
	ModelBoundary *float64         `json:"model_boundary"`
	ModelNote     string           `json:"model_note,omitempty"`
	ModelCurve    []ModelOddsPoint `json:"model_curve"`
	ModelSeconds  float64          `json:"model_seconds"`
}

// ModelOddsPoint is the model's P(trap) at one size.
type ModelOddsPoint struct {
	Size            float64    `json:"size"`
	TrapProbability Proportion `json:"trap_probability"`
}

// CampaignBaseline is what the campaign found at one baseline.
type CampaignBaseline struct {
	Rho        float64 `json:"rho"`
	DemandPerS float64 `json:"demand_per_s"`
	// SmallestTrap is the smallest size seen to trap, and
	// SmallestTrapLo/Hi the bracket: the largest size that recovered and
	// the smallest that trapped (Lo null when the first size trapped).
	// All null when nothing trapped up to `to`.
	SmallestTrap   *float64 `json:"smallest_trap"`
	SmallestTrapLo *float64 `json:"smallest_trap_lo"`
	SmallestTrapHi *float64 `json:"smallest_trap_hi"`
	// SearchEnd says how the search ended ("narrow", "none up to the
	// largest size", …, or what stopped it).
	SearchEnd string `json:"search_end"`
	// ModelSmallestTrap is the model's boundary from the scenario's A and
	// τ_out (null when A·ρ < 1: no size traps); MeasuredModelSmallestTrap
	// the same from the cells' measured A_fail and C.
	ModelSmallestTrap         *float64 `json:"model_smallest_trap"`
	MeasuredModelSmallestTrap *float64 `json:"measured_model_smallest_trap"`
	// AFail is the median A_fail the trapped cells measured; null when
	// none did.
	AFail *float64 `json:"a_fail"`
	// RecoveryDemandPerS is λ_r, the highest demand at which the failed
	// service came back, with its bracket; null when not searched.
	RecoveryDemandPerS   *float64 `json:"recovery_demand_per_s"`
	RecoveryDemandPerSLo *float64 `json:"recovery_demand_per_s_lo"`
	RecoveryDemandPerSHi *float64 `json:"recovery_demand_per_s_hi"`
	// ModelRecoveryDemandPerS is C/A (the measured A_fail and C when
	// there are).
	ModelRecoveryDemandPerS *float64 `json:"model_recovery_demand_per_s"`
	// TriggerMargin is the largest size a cell recovered from (or did not
	// trigger at) over expected_spike's size: how many times production's
	// spike the service was seen to survive; null without an
	// expected_spike or such a cell. A metastable cell does not count.
	// With trials it is the boundary's lower interval end at the level
	// (Odds.BoundaryLo), or, while that is unknown, the largest size whose
	// cell was below the level, over expected_spike's size.
	TriggerMargin *float64 `json:"trigger_margin"`
	Note          string   `json:"note,omitempty"`
	// Odds is the boundary at the level of P(trap), with campaign trials
	// or --tipping; absent otherwise.
	Odds *CampaignOdds `json:"odds,omitempty"`
}

// CampaignGate is min_trigger_margin's verdict.
type CampaignGate struct {
	MinTriggerMargin float64  `json:"min_trigger_margin"`
	Passed           bool     `json:"passed"`
	Failures         []string `json:"failures,omitempty"`
}

// smallestTrapUnder is SmallestTrap under a declared latency law
// (docs/model.md, "Latency laws and what sustains a trap"): the queue's
// closed forms at the wait's patience, τ_out − L₀, or under concurrency
// the fluid's least trigger where A·λ ≥ C_τ; +Inf where no size traps.
func (sc CampaignScenario) smallestTrapUnder(search string, l LatencyLaw, a, rho float64) float64 {
	lambda := rho * l.CapacityPerS
	if l.Queue() {
		tau := l.WaitPatienceS(sc.TimeoutS)
		if search == "duration" {
			return ModelSmallestDuration(a, rho, sc.Multiplier, tau)
		}
		return ModelSmallestMultiplier(a, rho, sc.SpikeS, tau)
	}
	if !TrapHoldsUnder(l, a, lambda, sc.TimeoutS) {
		return math.Inf(1)
	}
	if search == "duration" {
		return MinSpikeUnder(l, lambda, sc.Multiplier, sc.TimeoutS)
	}
	return MinMultiplierUnder(l, lambda, sc.SpikeS, sc.TimeoutS)
}
