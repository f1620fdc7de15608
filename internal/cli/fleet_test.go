package cli

import (
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// Usage errors of the fleet flags: kubernetes without the address its pods
// dial or without an image, an unknown engine, --workers with
// --metrics-addr, --dry-run without kubernetes, agent without its flags.
func TestRunFleetFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--yes", "--workers", "2", "--engine", "kubernetes", "--image", "x", "scenarios/recovers.hcl"}, "--advertise"},
		{[]string{"run", "--yes", "--workers", "2", "--engine", "kubernetes", "--advertise", "https://10.0.0.1:7000", "scenarios/recovers.hcl"}, "--image"},
		{[]string{"run", "--yes", "--workers", "2", "--engine", "kubernetes", "--advertise", "https://10.0.0.1:7000", "--image", "x",
			"--node-selector", "pool", "scenarios/recovers.hcl"}, "KEY=VALUE"},
		{[]string{"run", "--yes", "--workers", "2", "--engine", "mars", "scenarios/recovers.hcl"}, "want local or kubernetes"},
		{[]string{"run", "--yes", "--dry-run", "scenarios/recovers.hcl"}, "--workers"},
		{[]string{"run", "--yes", "--workers", "2", "--dry-run", "scenarios/recovers.hcl"}, "local engine has none"},
		{[]string{"run", "--yes", "--workers", "2", "--metrics-addr", "127.0.0.1:0", "scenarios/recovers.hcl"}, "--metrics-addr"},
		{[]string{"agent", "--index", "0"}, "--coordinator"},
		// The agents speak TLS: a plain http:// address is refused.
		{[]string{"run", "--yes", "--workers", "2", "--advertise", "http://10.0.0.1:7000", "scenarios/recovers.hcl"}, "https://"},
		{[]string{"run", "--yes", "--workers", "2", "--engine", "kubernetes", "--advertise", "http://10.0.0.1:7000", "--image", "x",
			"scenarios/recovers.hcl"}, "https://"},
		{[]string{"agent", "--index", "0", "--coordinator", "https://127.0.0.1:1", "--key-file", "/dev/zero", "--cert-sha256", "ab"}, "regular file"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
			}
		})
	}
}

// --dry-run prints the Job and the Secret a kubernetes run would create,
// with the flags' image, resources and node selector, the agents' command
// with the coordinator's address, and no token; it sends nothing and
// needs no cluster.
func TestRunDryRunPrintsManifests(t *testing.T) {
	code, stdout, stderr := run(t, "run", "--workers", "3", "--engine", "kubernetes", "--dry-run", "--image", "registry.example/trigger:1.0",
		"--advertise", "https://10.0.0.1:7000", "--agent-cpu", "2", "--agent-memory", "512Mi", "--node-selector", "pool=load",
		"--namespace", "staging", "scenarios/recovers.hcl")
	if code != ExitPassed {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{"kind: Job", "kind: Secret", "completionMode: Indexed", "parallelism: 3", "image: registry.example/trigger:1.0",
		"https://10.0.0.1:7000", "$(JOB_COMPLETION_INDEX)", "cpu: \"2\"", "memory: 512Mi", "pool: load", "namespace: staging", "REDACTED"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("manifests lack %q:\n%s", want, stdout)
		}
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
