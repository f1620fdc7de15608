package staging_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

// need returns the path of a program, skipping the test when it is missing
// (failing it when requireEnv is set, as in CI).
func need(t *testing.T, name, requireEnv string) string {
	t.Helper()
	path, skip, err := staging.LookBinary(name, requireEnv)
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip(skip)
	}
	return path
}

// startHAProxy starts haproxy for the test's lifetime; it needs the real
// binary (TRIGGER_REQUIRE_HAPROXY). Dir is the test's, so haproxy.cfg and
// haproxy.log survive until the test's cleanup.
func startHAProxy(t *testing.T, cfg staging.HAProxyConfig) *staging.HAProxy {
	t.Helper()
	cfg.Binary = need(t, "haproxy", staging.RequireHAProxyEnv)
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	h, err := staging.StartHAProxy(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("haproxy log:\n%s", h.Log())
		}
		if err := h.Stop(); err != nil {
			t.Error(err)
		}
	})
	return h
}

// upstream is a test HTTP server that counts its requests, remembers their
// X-Attempt headers, and answers after delay unless its client goes first.
type upstream struct {
	srv   *httptest.Server
	delay time.Duration

	mu       sync.Mutex
	attempts []string // X-Attempt of each request, in arrival order
	gone     int      // requests whose client left before delay
}

func startUpstream(t *testing.T, delay time.Duration) *upstream {
	t.Helper()
	u := &upstream{delay: delay}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.attempts = append(u.attempts, r.Header.Get("X-Attempt"))
	u.mu.Unlock()
	if u.delay > 0 {
		timer := time.NewTimer(u.delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			u.mu.Lock()
			u.gone++
			u.mu.Unlock()
			return
		}
	}
	_, _ = w.Write([]byte("ok\n"))
}

// addr is the upstream's host:port.
func (u *upstream) addr() string { return strings.TrimPrefix(u.srv.URL, "http://") }

// seen returns the X-Attempt headers of the requests so far, and how
// many of them were abandoned by their client (haproxy) before delay.
func (u *upstream) seen() (attempts []string, gone int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.attempts...), u.gone
}

// get sends one GET with the header X-Attempt: attempt through a client of
// its own with the given timeout (0 = none) and returns the status (0 when
// the client gave up) and the error.
func get(ctx context.Context, url, attempt string, timeout time.Duration) (int, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: timeout}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Attempt", attempt)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
