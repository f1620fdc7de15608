package staging

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Environment variables that turn a missing program from a skipped test
// into a failed one; CI sets both, so there the tests must run.
const (
	// RequireHAProxyEnv names the variable that makes a missing haproxy an error.
	RequireHAProxyEnv = "TRIGGER_REQUIRE_HAPROXY"
	// RequirePrometheusEnv names the variable that makes a missing prometheus an error.
	RequirePrometheusEnv = "TRIGGER_REQUIRE_PROMETHEUS"
)

// sbinDirs are searched after PATH: Debian installs haproxy in /usr/sbin,
// which is not on every user's PATH.
var sbinDirs = []string{"/usr/sbin", "/usr/local/sbin", "/sbin"}

// LookBinary finds the program name on PATH, then in /usr/sbin,
// /usr/local/sbin and /sbin. When it is found it returns its path. When it
// is missing it returns a skip reason (for t.Skip), unless the environment
// variable requireEnv is set (non-empty), in which case it returns an error
// (for t.Fatal). An empty requireEnv never requires.
func LookBinary(name, requireEnv string) (path, skipReason string, err error) {
	path, lookErr := exec.LookPath(name)
	if lookErr == nil {
		return path, "", nil
	}
	for _, dir := range sbinDirs {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, "", nil
		}
	}
	if requireEnv != "" && os.Getenv(requireEnv) != "" {
		return "", "", fmt.Errorf("staging: %s is set but no %s program is on PATH or in %v: %w",
			requireEnv, name, sbinDirs, lookErr)
	}
	reason := fmt.Sprintf("no %s program on PATH or in %v: install Debian's %s package to run this", name, sbinDirs, name)
	if requireEnv != "" {
		reason += fmt.Sprintf(" (with %s set, as in CI, this is an error)", requireEnv)
	}
	return "", reason, nil
}

// findBinary is LookBinary for the Start functions: a given path is used
// as is; otherwise a missing program is an error.
func findBinary(given, name string) (string, error) {
	if given != "" {
		return given, nil
	}
	path, skip, err := LookBinary(name, "")
	if err != nil {
		return "", err
	}
	if path == "" {
		return "", errors.New("staging: " + skip)
	}
	return path, nil
}
