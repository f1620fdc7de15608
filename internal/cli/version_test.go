package cli

import (
	"runtime/debug"
	"testing"
)

// The version is the module's when tagged, else the commit (short, with
// -dirty for a modified tree), else devel.
func TestVersionOf(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "devel"},
		{"tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}}, true, "v1.2.3"},
		{"clean commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}}, true, "0123456789ab"},
		{"dirty commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}, true, "0123456789ab-dirty"},
		{"nothing known", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
	} {
		if got := versionOf(c.bi, c.ok); got != c.want {
			t.Errorf("%s: version %q, want %q", c.name, got, c.want)
		}
	}
}

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
