package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
)

// startFleet starts the coordinator and the agents and waits until every
// agent is ready (its driver built, the allowlist checked by itself):
// part of the preflight, so an agent that cannot run sends nothing and
// neither do the others. The coordinator it returns, also with an error,
// is closed by the caller.
func startFleet(ctx context.Context, opts Options) (*fleet.Coordinator, error) {
	fo := opts.Fleet
	s := opts.Test.Scenario
	c, err := fleet.NewCoordinator(fleet.Config{
		RunID:  fmt.Sprintf("%s-%d", s.Name, time.Now().Unix()),
		Agents: fo.Agents, Engine: fo.Engine, Listen: fo.Listen, Advertise: fo.Advertise,
		File: fo.File, Source: fo.Source, Vars: fo.Vars, Seed: max(opts.Seed, 1),
		MaxInFlight: opts.Test.Driver.MaxInFlight,
		// The agents outlive the run's own limit by a little: the run
		// stops them first.
		MaxDuration: convert.MaxDuration(s) + 10*time.Second,
		JoinTimeout: fo.JoinTimeout,
		Logf:        opts.Logf,
	})
	if err != nil {
		return nil, &Error{Kind: KindUsage, Err: err}
	}
	if err := c.Launch(ctx); err != nil {
		if ctx.Err() != nil {
			return c, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
		}
		return c, failf(KindHarness, "agents: %w; nothing was sent", err)
	}
	opts.logf("%d agents ready (%s engine), coordinator at %s", fo.Agents, fo.Engine.Name(), c.URL())
	return c, nil
}

// agentLost ends the run inconclusive when the load's error says an agent
// was lost (the merged timeline lacks its share), and reports whether it did.
func (r *run) agentLost(err error) bool {
	if !errors.Is(err, fleet.ErrAgentLost) {
		return false
	}
	if r.inconclusive == "" {
		r.inconclusive, r.inconclusiveErr = err.Error(), ErrAgentLost
		r.opts.logf("stopping: %v", err)
	}
	return true
}
