// Package fleettest runs a fleet's agents as goroutines of the test's
// process, through the same protocol as real agents, so runner and fleet
// tests need no binary.
package fleettest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/trigger-test/trigger/fleet"
)

// Engine runs each agent as fleet.RunAgent in a goroutine.
type Engine struct {
	// Transport is the agents' drivers' transport; nil = their own.
	Transport http.RoundTripper
	// Edit, when set, changes each agent's configuration before it starts
	// (tests: a relay between the agents and the coordinator, another pin).
	Edit func(*fleet.AgentConfig)

	mu     sync.Mutex
	agents []*agent
	spec   fleet.AgentSpec
	wg     sync.WaitGroup
}

// Spec is what the coordinator gave Start: its address, the agents' keys
// and the certificate's fingerprint (tests that speak the protocol
// themselves).
func (e *Engine) Spec() fleet.AgentSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.spec
}

type agent struct {
	cancel context.CancelFunc
	killed atomic.Bool
	err    error // set before done is closed
	done   chan struct{}
}

// Name is "local": the agents run on this machine.
func (e *Engine) Name() string { return "local" }

// Start starts the agents.
func (e *Engine) Start(ctx context.Context, spec fleet.AgentSpec) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.spec = spec
	for i := range spec.Agents {
		actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		a := &agent{cancel: cancel, done: make(chan struct{})}
		e.agents = append(e.agents, a)
		cfg := fleet.AgentConfig{Coordinator: spec.Coordinator, Index: i, Key: spec.Keys[i], CertSHA256: spec.CertSHA256,
			Transport: e.Transport, WrapTransport: func(rt http.RoundTripper) http.RoundTripper { return killable{a: a, rt: rt} }}
		if e.Edit != nil {
			e.Edit(&cfg)
		}
		e.wg.Go(func() {
			defer close(a.done)
			a.err = fleet.RunAgent(actx, cfg)
		})
	}
	return nil
}

// Diagnose says whether the agent has returned, and with what; a killed
// agent has exited at once, as a killed process has.
func (e *Engine) Diagnose(_ context.Context, index int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if index < 0 || index >= len(e.agents) {
		return ""
	}
	a := e.agents[index]
	if a.killed.Load() {
		return "exited: killed"
	}
	select {
	case <-a.done:
		return fmt.Sprintf("exited: %v", a.err)
	default:
		return ""
	}
}

// Kill silences agent index at once, as a killed process: it sends nothing
// more to the coordinator and its driver stops.
func (e *Engine) Kill(index int) {
	e.mu.Lock()
	a := e.agents[index]
	e.mu.Unlock()
	a.killed.Store(true)
	a.cancel()
}

// Stop cancels every agent and waits for them.
func (e *Engine) Stop(context.Context) error {
	e.mu.Lock()
	for _, a := range e.agents {
		a.cancel()
	}
	e.mu.Unlock()
	e.wg.Wait()
	return nil
}

// Err is what agent index's RunAgent returned (nil while it runs).
func (e *Engine) Err(index int) error {
	e.mu.Lock()
	a := e.agents[index]
	e.mu.Unlock()
	select {
	case <-a.done:
		return a.err
	default:
		return nil
	}
}

// killable fails every request once its agent is killed.
type killable struct {
	a  *agent
	rt http.RoundTripper
}

func (k killable) RoundTrip(r *http.Request) (*http.Response, error) {
	if k.a.killed.Load() {
		return nil, errors.New("killed")
	}
	return k.rt.RoundTrip(r)
}
