package analysis

// FleetInfo is the fleet section of a run whose load was spread over
// agents (trigger run --workers N): which engine ran them, how many, what
// each sent, and how far apart they started.
type FleetInfo struct {
	// Engine is "local" or "kubernetes".
	Engine string `json:"engine"`
	// Agents is N.
	Agents int `json:"agents"`
	// StartSkewMS is the spread of the instants the agents' drivers
	// actually started (each agent's own wall clock): max − min,
	// milliseconds; null when fewer than two agents reported one.
	StartSkewMS *float64 `json:"start_skew_ms"`
	// PerAgent is each agent's first attempts, in index order.
	PerAgent []AgentCounts `json:"per_agent"`
}

// AgentCounts is what one agent of a fleet sent, over the seconds it reported.
type AgentCounts struct {
	Index int    `json:"index"`
	Name  string `json:"name"` // agent-INDEX, as errors name it
	// Sent is first attempts sent; FirstOK and FirstFailed are those that
	// completed with a success and without one (any class); Retries is
	// retry attempts sent.
	Sent        int64 `json:"sent"`
	FirstOK     int64 `json:"first_ok"`
	FirstFailed int64 `json:"first_failed"`
	Retries     int64 `json:"retries"`
	// Lost says why the agent was lost (stopped reporting, exited,
	// failed); empty for an agent that ran to the end.
	Lost string `json:"lost,omitempty"`
}
