// Package fleet runs one trigger test's load from many agents.
package fleet

import (
	"context"
	"strconv"
	"time"
)

// Engine starts and stops the agents of one run.
type Engine interface {
	// Name is "local" or "kubernetes", as result.json records it.
	Name() string
	// Start launches spec.Agents agents; each runs spec.Command(index)
	// with env TRIGGER_AGENT_TOKEN=spec.Token. It returns once they are
	// launched, not joined.
	Start(ctx context.Context, spec AgentSpec) error
	// Diagnose says, for an agent that has not joined or stopped
	// reporting, what the engine knows about it; "" if nothing.
	Diagnose(ctx context.Context, index int) string
	// Stop stops every agent and releases what Start created. Idempotent;
	// safe after a failed Start.
	Stop(ctx context.Context) error
}

// AgentSpec is what every agent of a run is started with.
type AgentSpec struct {
	RunID       string        // the run's id (labels, names)
	Agents      int           // N
	Coordinator string        // base URL the agents dial
	Token       string        // shared secret the agents present
	MaxDuration time.Duration // agents stop by themselves after it
}

// Command is the agent's command line after the binary's name.
func (s AgentSpec) Command(index int) []string {
	return []string{"agent", "--coordinator", s.Coordinator, "--index", strconv.Itoa(index)}
}
