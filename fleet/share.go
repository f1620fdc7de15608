package fleet

import (
	"github.com/trigger-test/trigger/loadgen"
)

// seedStride separates the agents' seeds. It is not the stride the
// driver steps its own seed by at each replan (the golden ratio of 2⁶⁴):
// with the same stride, agent 1's first schedule would draw the very
// arrivals agent 0 draws after its first replan.
const seedStride = 0xbf58476d1ce4e5b9

// Share is agent index's part of a run's driver configuration among n:
// the first-attempt rate divided by n (a superposition of independent
// Poisson streams is Poisson), its own seed (agent 0 keeps the run's),
// tracers on agent 0 only, and ⌈max_in_flight/n⌉. Retries and their budget
// stay with the agent that made the first attempt: each agent has its own
// Retrier.
func Share(cfg loadgen.Config, index, n int, seed uint64) loadgen.Config {
	cfg.Stages = ShareStages(cfg.Stages, n)
	cfg.Seed = max(seed, 1) + uint64(index)*seedStride
	cfg.Phase = float64(index) / float64(n)
	if index != 0 {
		cfg.Tracers = nil
	}
	if cfg.MaxInFlight > 0 {
		cfg.MaxInFlight = (cfg.MaxInFlight + n - 1) / n
	}
	return cfg
}

// ShareStages divides every stage's rate by n (first attempts per second).
func ShareStages(stages []loadgen.Stage, n int) []loadgen.Stage {
	out := make([]loadgen.Stage, len(stages))
	for i, s := range stages {
		out[i] = loadgen.Stage{Duration: s.Duration, From: s.From / float64(n), To: s.To / float64(n)}
	}
	return out
}
