// Package version says which trigger is running, from what the Go
// toolchain stamped into the binary (runtime/debug.ReadBuildInfo).
package version

import "runtime/debug"

// Devel is the version of a binary that carries neither a module version
// nor a VCS revision (go run, go test, a build with -buildvcs=false).
const Devel = "devel"

// String is the running trigger's version: the main module's version
// ("v1.4.2", or the pseudo-version the toolchain stamps on a build from a
// checkout), else the VCS revision it was built from with "+dirty" when
// the tree was modified ("3f2c1a9e0b7d+dirty", 12 hex digits), else Devel.
// The runner records it in the result document (trigger_version); the
// CLI's --version prints it.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return fromBuildInfo(info)
}

// fromBuildInfo is String's answer for a binary's build information.
func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return Devel
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified == "true" {
		revision += "+dirty"
	}
	return revision
}
