package cli

import "testing"

// trigger --version and trigger version print "trigger VERSION" and exit 0.
func TestVersionFlagAndCommand(t *testing.T) {
	want := "trigger " + toolVersion() + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, stdout, stderr := run(t, args...)
		if code != ExitPassed || stdout != want {
			t.Errorf("trigger %v: exit %d, stdout %q, stderr %q; want exit 0 and %q", args, code, stdout, stderr, want)
		}
	}
}
