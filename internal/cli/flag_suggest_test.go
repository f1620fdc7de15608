package cli

import (
	"strings"
	"testing"
)

// An unknown flag's error names the nearest flag of that command (its own
// or inherited), and only a near one.
func TestUnknownFlagSuggestsNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" when no suggestion is due
	}{
		{[]string{"run", "--metrics-listen", "127.0.0.1:9464", "scenarios/recovers.hcl"}, "did you mean --metrics-addr?"},
		{[]string{"plan", "--jsn", "scenarios/recovers.hcl"}, "did you mean --json?"},
		{[]string{"plan", "--allow-file=x", "scenarios/recovers.hcl"}, "did you mean --allow-files?"},
		{[]string{"compare", "--mark-down", "a", "b"}, "did you mean --markdown?"},
		{[]string{"plan", "--zzzzzzzz", "scenarios/recovers.hcl"}, ""},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, "unknown flag") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and an unknown flag", tc.args, code, stderr)
			continue
		}
		if tc.want == "" && strings.Contains(stderr, "did you mean") {
			t.Errorf("%v: stderr %q suggests a flag far from the one given", tc.args, stderr)
		}
		if tc.want != "" && !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q; want %q", tc.args, stderr, tc.want)
		}
	}
}
