package staging_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
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

// haproxy's own exporter counts before the upstream's queue: its
// haproxy_backend_connection_attempts_total grows by every try, while
// haproxy_backend_http_requests_total grows by the client's requests. A
// trigger test that reads ingress from it sees a hidden retry layer.
func TestHAProxyExporterCountsEveryTry(t *testing.T) {
	t.Parallel()
	up := startUpstream(t, 2*time.Second)
	h := startHAProxy(t, staging.HAProxyConfig{Upstream: up.addr(), TryTimeout: 200 * time.Millisecond, Retries: 2, Exporter: true})
	for range 2 {
		if status, err := get(t.Context(), h.URL+"/work", "1", 0); err != nil || status != http.StatusGatewayTimeout {
			t.Fatalf("status %d, %v; want 504", status, err)
		}
	}
	body := getBody(t, "http://"+h.ExporterAddr+"/metrics")
	for metric, want := range map[string]string{
		`haproxy_backend_connection_attempts_total{proxy="be"}`: "6",
		`haproxy_backend_http_requests_total{proxy="be"}`:       "2",
	} {
		if !strings.Contains(body, metric+" "+want+"\n") {
			t.Errorf("exporter: want %s %s in\n%s", metric, want, grepLines(body, "proxy=\"be\""))
		}
	}
	if attempts, _ := up.seen(); len(attempts) != 6 {
		t.Errorf("upstream saw %d requests, want 6", len(attempts))
	}
}

// getBody GETs url and returns its body.
func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The stack composes: haproxy in front of the specimen forwards /work,
// and the specimen's counters see it.
func TestSpecimenBehindHAProxy(t *testing.T) {
	t.Parallel()
	s, err := specimen.StartLoopback(t.Context(), specimen.Config{Pods: 1, PodRate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	h := startHAProxy(t, staging.HAProxyConfig{Upstream: s.Addr, TryTimeout: time.Second, Retries: 2})
	if status, err := get(t.Context(), h.URL+"/work", "", 0); err != nil || status != http.StatusOK {
		t.Fatalf("GET /work through haproxy: %d, %v; want 200", status, err)
	}
	if got := s.Server.Stats().Ingress(); got != 1 {
		t.Errorf("specimen ingress %d, want 1", got)
	}
}
