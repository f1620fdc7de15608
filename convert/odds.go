package convert

import (
	"context"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/request"
)

// OddsSeed is the first seed of the model's odds: plan, simulate and run
// take the same runs, so they show the same figure.
const OddsSeed = 1

// TrapProbability is the test's trap_probability section, the one
// function plan, simulate and run fill it with: the request-level model's
// P(trap) over request.DefaultOddsRuns seeded runs from OddsSeed, within
// request.DefaultOddsBudget simulated attempts (request.OddsSection).
// The figure is null with the reason when the request model does not
// describe the scenario: it keeps the pods it starts with, so a service
// with an autoscaler is not its to judge. The error is ctx's.
func (t *Test) TrapProbability(ctx context.Context) (*analysis.TrapProbability, error) {
	if s := t.Scenario; s != nil && s.Service.Autoscaler != nil {
		return &analysis.TrapProbability{Model: "request", FirstSeed: OddsSeed, RunsWanted: request.DefaultOddsRuns,
			AttemptBudget:    request.DefaultOddsBudget,
			ModelUnavailable: "the request model keeps the service's pods fixed: the scenario's autoscaler, which adds pods after its dead time, is not in it"}, nil
	}
	sec, err := request.OddsSection(ctx, t.RequestConfig(OddsSeed), request.DefaultOddsRuns, request.DefaultOddsBudget)
	if err != nil {
		return nil, err
	}
	return &sec, nil
}
