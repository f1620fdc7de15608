package version

import (
	"runtime/debug"
	"testing"
)

// The module's version first, else the VCS revision (cut to 12 hex
// digits, "+dirty" when modified), else devel.
func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3f2c1a9e0b7d5c4b3a291807f6e5d4c3b2a19080"}}
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.4.2"}, Settings: rev}, "v1.4.2"},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261205034000-3f2c1a9e0b7d+dirty"}}, "v0.0.0-20261205034000-3f2c1a9e0b7d+dirty"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "3f2c1a9e0b7d"},
		{"modified checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: append(rev[:2:2], debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "3f2c1a9e0b7d+dirty"},
		{"clean checkout", debug.BuildInfo{Settings: append(rev[:2:2], debug.BuildSetting{Key: "vcs.modified", Value: "false"})}, "3f2c1a9e0b7d"},
		{"nothing stamped", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Devel},
	} {
		if got := fromBuildInfo(&tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A test binary has build information; whatever it says, String names a
// version.
func TestStringIsNeverEmpty(t *testing.T) {
	if String() == "" {
		t.Error("empty version")
	}
}
