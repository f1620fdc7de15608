package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A run's summary has one line a phase with its first attempts' p50, p95
// and p99, the successes' apart when some failed, and says when a phase
// had none; a fleet's run says it was not measured.
func TestLatencyByPhaseText(t *testing.T) {
	pc := func(n int64, p50, p95, p99 float64) analysis.LatencyPercentiles {
		return analysis.LatencyPercentiles{Attempts: n, P50S: analysis.Num(p50), P95S: analysis.Num(p95), P99S: analysis.Num(p99)}
	}
	doc := analysis.Document{Kind: "run", Observation: &analysis.Observation{Source: "run", LatencyByPhase: []analysis.PhaseLatency{
		{Phase: analysis.PhaseWarmup, LatencyPercentiles: pc(600, 0.012, 0.03, 0.041), Succeeded: pc(600, 0.012, 0.03, 0.041)},
		{Phase: analysis.PhaseSpike, LatencyPercentiles: pc(1500, 0.25, 1, 1.02), Succeeded: pc(900, 0.2, 0.45, 0.49)},
		{Phase: analysis.PhaseObserve, LatencyPercentiles: pc(200, 1, 1, 1)},
		{Phase: analysis.PhaseOnTrap},
	}}}
	var b bytes.Buffer
	if err := printDocument(&b, doc); err != nil {
		t.Fatal(err)
	}
	want := `Latency        warmup   p50 12 ms   p95 30 ms   p99 41 ms (600 first attempts)
               spike    p50 250 ms   p95 1 s   p99 1.02 s (1500 first attempts); the 900 that succeeded: p50 200 ms   p95 450 ms   p99 490 ms
               observe  p50 1 s   p95 1 s   p99 1 s (200 first attempts, none succeeded)
               on_trap  no first attempts
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("the summary lacks\n%s\nin\n%s", want, b.String())
	}
	doc.Scenario.Fault = &analysis.FaultSection{}
	if got := latencyLines(doc); !strings.HasPrefix(got[1], "fault ") {
		t.Errorf("a fault's spike reads %q, want it named the fault", got[1])
	}
	doc.Observation.LatencyByPhase, doc.Fleet = nil, &analysis.FleetInfo{Agents: 2}
	if got := latencyLines(doc); len(got) != 1 || !strings.Contains(got[0], "not measured") {
		t.Errorf("a fleet's run: %q", got)
	}
	doc.Fleet = nil
	if got := latencyLines(doc); got != nil {
		t.Errorf("without the figure: %q", got)
	}
}
