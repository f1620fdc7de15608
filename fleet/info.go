package fleet

import (
	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// Info is the fleet section of the result document: the engine, the
// agents, each one's first attempts, and the start skew (the spread of the
// instants the agents' drivers actually started, max − min, milliseconds;
// null when fewer than two reported it).
func (c *Coordinator) Info() *analysis.FleetInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	info := &analysis.FleetInfo{Engine: c.cfg.Engine.Name(), Agents: c.cfg.Agents}
	var lo, hi int64
	started := 0
	for i, a := range c.agents {
		ac := analysis.AgentCounts{Index: i, Name: AgentName(i), Lost: a.lost}
		for _, s := range a.rows {
			ac.Sent += s.Sent
			ac.Retries += s.Retries
			for o, n := range s.FirstOutcomes {
				if vocab.Outcome(o) == vocab.OutcomeOK {
					ac.FirstOK += n
				} else {
					ac.FirstFailed += n
				}
			}
		}
		info.PerAgent = append(info.PerAgent, ac)
		if t := a.startedUnixNS; t != 0 {
			if started == 0 || t < lo {
				lo = t
			}
			if started == 0 || t > hi {
				hi = t
			}
			started++
		}
	}
	if started >= 2 {
		info.StartSkewMS = analysis.Num(float64(hi-lo) / 1e6)
	}
	return info
}
