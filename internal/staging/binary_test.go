package staging_test

import (
	"strings"
	"testing"

	"github.com/trigger-test/trigger/internal/staging"
)

func TestLookBinary(t *testing.T) {
	const env = "STAGING_TEST_REQUIRE"
	const missing = "no-such-program-staging-test"
	cases := []struct {
		name, program, requireEnv, envValue string
		wantPath, wantSkip, wantErr         bool
	}{
		{"present", "sh", env, "", true, false, false},
		{"missing, not required", missing, env, "", false, true, false},
		{"missing, required", missing, env, "1", false, false, true},
		{"missing, no variable", missing, "", "", false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(env, c.envValue)
			path, skip, err := staging.LookBinary(c.program, c.requireEnv)
			if (path != "") != c.wantPath || (skip != "") != c.wantSkip || (err != nil) != c.wantErr {
				t.Errorf("LookBinary(%q, %q) = %q, %q, %v", c.program, c.requireEnv, path, skip, err)
			}
			if skip != "" && !strings.Contains(skip, c.program) {
				t.Errorf("skip reason %q does not name the program", skip)
			}
		})
	}
}

// haproxy is in /usr/sbin on Debian, not on every PATH: it is found there.
func TestLookBinarySbin(t *testing.T) {
	found, skip, _ := staging.LookBinary("haproxy", "")
	if skip != "" {
		t.Skip(skip)
	}
	if !strings.Contains(found, "/sbin/") {
		t.Skipf("haproxy is %s, not in an sbin directory", found)
	}
	t.Setenv("PATH", "/nonexistent")
	path, skip, err := staging.LookBinary("haproxy", staging.RequireHAProxyEnv)
	if err != nil || skip != "" || !strings.HasSuffix(path, "/haproxy") {
		t.Errorf("with an empty PATH: %q, %q, %v; want haproxy from an sbin directory", path, skip, err)
	}
}

func TestFreePort(t *testing.T) {
	port, err := staging.FreePort()
	if err != nil || port <= 0 || port > 65535 {
		t.Fatalf("FreePort() = %d, %v", port, err)
	}
	addr, err := staging.LoopbackAddr()
	if err != nil || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("LoopbackAddr() = %q, %v", addr, err)
	}
}
