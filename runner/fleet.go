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
	spec := AgentSpecOf(opts.Test, fo)
	src, vars, err := agentScenario(opts.Test, fo)
	if err != nil {
		return nil, &Error{Kind: KindUsage, Err: err}
	}
	c, err := fleet.NewCoordinator(fleet.Config{
		RunID:  spec.RunID,
		Agents: fo.Agents, Engine: fo.Engine, Listen: fo.Listen, Advertise: fo.Advertise,
		File: fo.File, Source: src, Vars: vars, Seed: max(opts.Seed, 1),
		MaxInFlight: opts.Test.Driver.MaxInFlight,
		MaxDuration: spec.MaxDuration,
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

// agentScenario is the scenario the agents get (fleet.AgentScenarioOf): no
// notify block, and no secret their load does not use.
func agentScenario(test *convert.Test, fo *FleetOptions) ([]byte, map[string]string, error) {
	src, vars, err := fleet.AgentScenarioOf(test.Scenario, fo.File, fo.Source, fo.Vars)
	if err != nil {
		return nil, nil, fmt.Errorf("the scenario for the agents: %w", err)
	}
	return src, vars, nil
}

// agentGrace is how long the agents outlive the run's own limit: the run
// stops them first.
const agentGrace = 10 * time.Second

// NewRunID names a run of the scenario for the engine: its name and the
// Unix time, seconds.
func NewRunID(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().Unix()) }

// AgentSpecOf is what the agents of a run are started with, as far as it
// is known before the coordinator listens: its address is fo.Advertise
// (empty when the coordinator picks it) and its token is left out. The
// dry run prints the kubernetes engine's manifests from it.
func AgentSpecOf(test *convert.Test, fo *FleetOptions) fleet.AgentSpec {
	id := fo.RunID
	if id == "" {
		id = NewRunID(test.Run.Name)
	}
	return fleet.AgentSpec{RunID: id, Agents: fo.Agents, Coordinator: fo.Advertise,
		MaxDuration: test.Run.MaxDuration + agentGrace}
}

// fleetStopTimeout bounds how long the end of a run waits for the engine
// to stop the agents (delete the Job): they stop by themselves 3 s after
// the coordinator goes quiet in any case.
const fleetStopTimeout = 30 * time.Second

// closeFleet stops the agents and the coordinator, also after an
// interrupt, within fleetStopTimeout.
// An engine that fails to (a Job that could not be deleted) is reported.
func closeFleet(ctx context.Context, c *fleet.Coordinator, logf func(string, ...any)) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fleetStopTimeout)
	defer cancel()
	if err := c.Close(sctx); err != nil {
		logf("stopping the agents: %v", err)
	}
}

// agentLost ends the run inconclusive when the load's error says an agent
// was lost (the merged timeline lacks its share), and reports whether it did.
func (r *run) agentLost(err error) bool {
	if !errors.Is(err, fleet.ErrAgentLost) {
		return false
	}
	if r.harnessInconclusive == "" {
		r.harnessInconclusive, r.harnessInconclusiveErr = err.Error(), ErrAgentLost
		r.opts.logf("stopping: %v", err)
	}
	return true
}
