package campaign

import (
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// PlannedBaseline is what a campaign plans at one baseline: the first
// cell's size and the most cells its searches can take.
type PlannedBaseline struct {
	Rho, DemandPerS float64
	First           float64
	// MaxTriggerCells bounds the smallest-trap search; MaxRecoveryCells
	// the λ_r search (0 without hysteresis). MaxTriggerRuns is the
	// trigger cells' runs: each cell's trials at most.
	MaxTriggerCells, MaxRecoveryCells, MaxTriggerRuns int
	// ModelSmallestTrap is the model's boundary from the scenario's A
	// (+Inf: no size traps).
	ModelSmallestTrap float64
}

// Planned is a campaign's plan, for --dry-run: the cells and the longest
// it can take.
type Planned struct {
	Baselines []PlannedBaseline
	// CellLength is the longest one cell can take (warmup, spike, observe,
	// on_trap's observation, and a fault's commands' bounds: convert.RunLength);
	// ProbeLimit the longest the probe before it waits; Rest the pause
	// before each cell after the first.
	CellLength, ProbeLimit, Rest time.Duration
	// MaxCells counts runs: a trigger cell's trials each count.
	MaxCells int
	// Longest is the most the campaign can take: every cell at its
	// longest, with its rest and probe, bounded by max_duration.
	Longest time.Duration
	// Bounded says max_duration, not the cells, bounds Longest.
	Bounded bool
}

// Plan is what Run would do with test, without sending anything.
func Plan(s *scenarios.Scenario, plannedA, patienceS float64, law *analysis.LatencyLaw) Planned {
	c := s.Campaign
	p := Planned{ProbeLimit: convert.ProbeLimit(s), Rest: c.Rest}
	// The longest cell is one with the largest size, as a cell runs it.
	p.CellLength = convert.RunLength(scenarioFor(s, cell{kind: analysis.CellTrigger, size: c.To}))
	for i, rho := range c.Baselines {
		b := PlannedBaseline{Rho: rho, DemandPerS: c.Rates[i], First: c.From, MaxTriggerCells: analysis.MaxSteps(c.From, c.To, c.Precision)}
		if c.Hysteresis {
			b.MaxRecoveryCells = analysis.MaxKnownSteps(0, c.Rates[i], c.Precision)
		}
		sc := analysis.CampaignScenario{Multiplier: s.Load.Spike.Multiplier, SpikeS: s.Load.Spike.Duration.Seconds(), TimeoutS: patienceS, Law: law}
		b.ModelSmallestTrap = sc.SmallestTrap(c.Search.String(), plannedA, rho)
		b.MaxTriggerRuns = b.MaxTriggerCells * max(c.Trials, 1)
		p.MaxCells += b.MaxTriggerRuns + b.MaxRecoveryCells
		p.Baselines = append(p.Baselines, b)
	}
	p.Longest = time.Duration(p.MaxCells) * (p.CellLength + p.ProbeLimit + p.Rest)
	if p.Longest > c.MaxDuration {
		p.Longest, p.Bounded = c.MaxDuration, true
	}
	return p
}
