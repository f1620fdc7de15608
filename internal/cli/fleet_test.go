package cli

import (
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// --engine kubernetes is a usage error until a build registers it; so is
// --workers with --metrics-addr, and agent without its flags.
func TestRunFleetFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--yes", "--workers", "2", "--engine", "kubernetes", "scenarios/recovers.hcl"}, "not available in this build yet"},
		{[]string{"run", "--yes", "--workers", "2", "--engine", "mars", "scenarios/recovers.hcl"}, "unknown engine"},
		{[]string{"run", "--yes", "--workers", "2", "--metrics-addr", "127.0.0.1:0", "scenarios/recovers.hcl"}, "--metrics-addr"},
		{[]string{"agent", "--index", "0"}, "--coordinator"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
			}
		})
	}
}

// The text output has a line about the agents.
func TestFleetText(t *testing.T) {
	skew := 1.25
	got := fleetText(&analysis.FleetInfo{Engine: "local", Agents: 2, StartSkewMS: &skew, PerAgent: []analysis.AgentCounts{
		{Name: "agent-0", Sent: 10, FirstOK: 9, FirstFailed: 1}, {Name: "agent-1", Sent: 3, Lost: "no report for 3s"}}})
	want := "2 on the local engine, start skew 1.2 ms; agent-0 sent 10 (ok 9, failed 1); agent-1 sent 3 (ok 0, failed 0) LOST: no report for 3s"
	if got != want {
		t.Errorf("fleetText:\n got %s\nwant %s", got, want)
	}
}
