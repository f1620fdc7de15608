package staging_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

// Through haproxy, a request the upstream never answers within the try
// timeout is tried Retries+1 times, on the one server, with its headers
// unchanged, and the client gets 504; a fast upstream is asked once.
func TestHAProxyTries(t *testing.T) {
	cases := []struct {
		name       string
		delay      time.Duration // upstream's answer time
		retries    int
		wantStatus int
		wantTries  int
	}{
		{"slow, 2 retries", 2 * time.Second, 2, http.StatusGatewayTimeout, 3},
		{"slow, no retry", 2 * time.Second, 0, http.StatusGatewayTimeout, 1},
		{"fast, 2 retries", 0, 2, http.StatusOK, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := startUpstream(t, c.delay)
			h := startHAProxy(t, staging.HAProxyConfig{Upstream: up.addr(), TryTimeout: 300 * time.Millisecond, Retries: c.retries})
			status, err := get(t.Context(), h.URL+"/work", "first-1", 0)
			if err != nil {
				t.Fatal(err)
			}
			if status != c.wantStatus {
				t.Errorf("status %d, want %d", status, c.wantStatus)
			}
			// Every try has arrived by the time haproxy answers.
			attempts, gone := up.seen()
			if len(attempts) != c.wantTries {
				t.Errorf("upstream saw %d requests, want %d", len(attempts), c.wantTries)
			}
			for i, a := range attempts {
				if a != "first-1" {
					t.Errorf("try %d carried X-Attempt %q, want the client's %q unchanged", i+1, a, "first-1")
				}
			}
			t.Logf("status %d, %d upstream requests (X-Attempt %q), %d abandoned by haproxy so far", status, len(attempts), attempts, gone)
		})
	}
}

// A taken frontend port or a bad configuration is an error quoting
// haproxy's own complaint; here, a maxconn the descriptor limit forbids.
func TestHAProxyStartError(t *testing.T) {
	t.Parallel()
	up := startUpstream(t, 0)
	bin := need(t, "haproxy", staging.RequireHAProxyEnv)
	h, err := staging.StartHAProxy(t.Context(), staging.HAProxyConfig{Binary: bin, Upstream: up.addr(),
		TryTimeout: time.Second, MaxConn: 1_000_000})
	if err == nil {
		_ = h.Stop()
		t.Skip("haproxy could raise its descriptor limit for maxconn 1,000,000 here")
	}
	t.Logf("error: %v", err)
	if !containsAny(err.Error(), "FD limit", "maxconn", "memory") {
		t.Errorf("error does not quote haproxy's complaint: %v", err)
	}
}

func TestHAProxyConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  staging.HAProxyConfig
	}{
		{"no upstream", staging.HAProxyConfig{TryTimeout: time.Second}},
		{"remote upstream", staging.HAProxyConfig{Upstream: "10.0.0.1:80", TryTimeout: time.Second}},
		{"no try timeout", staging.HAProxyConfig{Upstream: "127.0.0.1:80"}},
		{"negative retries", staging.HAProxyConfig{Upstream: "127.0.0.1:80", TryTimeout: time.Second, Retries: -1}},
		{"missing binary", staging.HAProxyConfig{Binary: "/nonexistent/haproxy", Upstream: "127.0.0.1:80", TryTimeout: time.Second}},
		{"missing directory", staging.HAProxyConfig{Upstream: "127.0.0.1:80", TryTimeout: time.Second, Dir: "/nonexistent/dir"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := staging.StartHAProxy(context.Background(), c.cfg)
			if err == nil {
				_ = h.Stop()
				t.Fatal("started; want an error")
			}
			t.Log(err)
		})
	}
}

// A context that ends stops haproxy; Stop then reports no error.
func TestHAProxyContextStops(t *testing.T) {
	t.Parallel()
	up := startUpstream(t, 0)
	bin := need(t, "haproxy", staging.RequireHAProxyEnv)
	ctx, cancel := context.WithCancel(t.Context())
	h, err := staging.StartHAProxy(ctx, staging.HAProxyConfig{Binary: bin, Upstream: up.addr(), TryTimeout: time.Second})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cancel()
	if err := h.Stop(); err != nil {
		t.Errorf("stop after the context ended: %v", err)
	}
	if _, err := get(t.Context(), h.URL+staging.ReadyPath, "", time.Second); err == nil {
		t.Error("the frontend still answers after Stop")
	}
}
