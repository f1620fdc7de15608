package prom

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// authSeen is an httptest server that records how many requests it got
// and how many carried an Authorization header.
type authSeen struct {
	srv           *httptest.Server
	calls, authed atomic.Int64
}

func newAuthSeen(t *testing.T, h http.HandlerFunc) *authSeen {
	t.Helper()
	a := &authSeen{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.calls.Add(1)
		if r.Header.Get("Authorization") != "" {
			a.authed.Add(1)
		}
		h(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// A Prometheus address that redirects to another host: the other host
// never sees the credentials (it is not even asked), the redirect is an
// error naming both origins, and it is not retried.
func TestRemoteRefusesCrossOriginRedirect(t *testing.T) {
	verifyNoLeaks(t)
	for _, tc := range []struct {
		name string
		auth func(RemoteConfig) RemoteConfig
	}{
		{"bearer", func(c RemoteConfig) RemoteConfig { c.BearerToken = "s3cret"; return c }},
		{"basic auth", func(c RemoteConfig) RemoteConfig { c.Username, c.Password = "sre", "pw"; return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			elsewhere := newAuthSeen(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(oneSample))
			})
			prom := newAuthSeen(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere.srv.URL+r.URL.RequestURI(), http.StatusFound)
			})
			r := mustRemote(t, tc.auth(fast(prom.srv.URL)))
			_, err := r.Instant(context.Background(), "up", time.Now())
			if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "redirect to another origin") ||
				!strings.Contains(err.Error(), strings.TrimPrefix(elsewhere.srv.URL, "http://")) {
				t.Errorf("err = %v, want ErrServer naming the refused redirect", err)
			}
			if n := elsewhere.authed.Load(); n != 0 {
				t.Errorf("the other host received the credentials %d times", n)
			}
			if n := elsewhere.calls.Load(); n != 0 {
				t.Errorf("the redirect was followed %d times", n)
			}
			if n := prom.calls.Load(); n != 1 {
				t.Errorf("%d requests to the address, want 1: a redirect elsewhere is not retried", n)
			}
		})
	}
}

// A redirect within the address's origin (a path prefix added by a proxy)
// is followed, with the credentials on every hop.
func TestRemoteFollowsSameOriginRedirect(t *testing.T) {
	verifyNoLeaks(t)
	var prom *authSeen
	prom = newAuthSeen(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/prom/") {
			http.Redirect(w, r, prom.srv.URL+"/prom"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(oneSample))
	})
	cfg := fast(prom.srv.URL)
	cfg.BearerToken = "s3cret"
	r := mustRemote(t, cfg)
	if v, err := r.Instant(context.Background(), "up", time.Now()); err != nil || v != 5 {
		t.Fatalf("Instant = %v, %v", v, err)
	}
	if c, a := prom.calls.Load(), prom.authed.Load(); c != 2 || a != 2 {
		t.Errorf("%d requests, %d with credentials; want 2 and 2", c, a)
	}
}

// The credentials RoundTripper adds them to its own origin only.
func TestCredentialsOnlyForTheirOrigin(t *testing.T) {
	var got string
	next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})
	home := originOf(mustURL(t, "http://Prometheus:9090/base"))
	rt := bearer(home, "s3cret", next)
	tests := []struct {
		url  string
		want bool
	}{
		{"http://prometheus:9090/api/v1/query", true},       // same origin, case aside
		{"http://PROMETHEUS:9090/other", true},              // hosts compare without case
		{"http://prometheus/api/v1/query", false},           // another port (80)
		{"https://prometheus:9090/api/v1/query", false},     // another scheme
		{"http://prometheus.evil:9090/api/v1/query", false}, // another host
		{"http://127.0.0.1:9090/api/v1/query", false},       // the same machine, another name
	}
	for _, tc := range tests {
		got = ""
		req, _ := http.NewRequest("GET", tc.url, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if (got == "Bearer s3cret") != tc.want {
			t.Errorf("%s: Authorization %q, want credentials %v", tc.url, got, tc.want)
		}
		if req.Header.Get("Authorization") != "" {
			t.Errorf("%s: the caller's request was changed", tc.url)
		}
	}
	if a, b := originOf(mustURL(t, "https://p/")), originOf(mustURL(t, "https://p:443/x")); a != b {
		t.Errorf("default port: %v ≠ %v", a, b)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
