package fleet

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Engine starts and stops the agents of one run.
type Engine interface {
	Name() string // "local" or "kubernetes", as result.json records it
	// Start launches spec.Agents agents; each runs the command line
	// spec.Command(index) (argv after the binary: ["agent", "--coordinator", URL, "--index", "I"])
	// with its key (KeyEnv=spec.Keys[index], or --key-file) and the certificate's
	// fingerprint (CertEnv=spec.CertSHA256), never in argv. It returns once they are
	// launched, not joined.
	Start(ctx context.Context, spec AgentSpec) error
	// Diagnose says, for an agent that has not joined or stopped reporting, what the engine
	// knows about it (process exit status and stderr tail; a pod's phase and last event), "" if nothing.
	// An agent that has ended is said to have "exited" (see Exited).
	Diagnose(ctx context.Context, index int) string
	// Stop stops every agent and releases what Start created (kill processes; delete the Job). Idempotent; safe after a failed Start.
	Stop(ctx context.Context) error
}

// AgentSpec is what an Engine needs to launch the agents of one run.
type AgentSpec struct {
	RunID       string // the run's id (labels, names)
	Agents      int    // N
	Coordinator string // base URL the agents dial, e.g. https://127.0.0.1:41234
	// Keys are the agents' keys, hex, one per agent, random per run: agent
	// I signs its requests with Keys[I] (auth.go). Secret.
	Keys []string
	// CertSHA256 is the fingerprint of the coordinator's certificate for
	// the run, which the agents pin (pin.go). Not secret, but it must reach
	// the agents by a channel a relay cannot change.
	CertSHA256  string
	MaxDuration time.Duration // agents stop by themselves after it (and the engine may enforce it: activeDeadlineSeconds)
}

// KeyFileFlag is the agent's flag naming a file that holds its key (the
// Kubernetes engine mounts the keys from a Secret).
const KeyFileFlag = "--key-file"

// Command is the command line of agent index, after the binary's name.
func (s AgentSpec) Command(index int) []string {
	return []string{"agent", "--coordinator", s.Coordinator, "--index", strconv.Itoa(index)}
}

// AgentName is how results and errors name agent index.
func AgentName(index int) string { return "agent-" + strconv.Itoa(index) }

// Exited reports whether an engine's diagnosis says the agent has ended:
// the coordinator then calls it lost at once instead of waiting out the
// silence.
func Exited(diagnosis string) bool { return strings.Contains(diagnosis, "exited") }
