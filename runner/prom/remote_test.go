package prom

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/tlsfiles"
)

// oneSample is a Prometheus answer to an instant query: one series, 5.
const oneSample = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"x"},"value":[1700000000,"5"]}]}}`

// fakeProm is an httptest server answering /api/v1/query with answers[i]
// for the i-th request (the last one repeated), counting requests.
type fakeProm struct {
	srv   *httptest.Server
	calls atomic.Int64
}

type answer struct {
	status int
	body   string
	header map[string]string
}

func newFakeProm(t *testing.T, check func(*http.Request) bool, answers ...answer) *fakeProm {
	t.Helper()
	f := &fakeProm{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(f.calls.Add(1)) - 1
		if check != nil && !check(r) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		a := answers[min(i, len(answers)-1)]
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// fast is a RemoteConfig with millisecond backoffs for tests.
func fast(addr string) RemoteConfig {
	return RemoteConfig{Address: addr, RetryBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Timeout: 5 * time.Second}
}

func mustRemote(t *testing.T, cfg RemoteConfig) *Remote {
	t.Helper()
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func TestRemoteAuthAndRetries(t *testing.T) {
	verifyNoLeaks(t)
	unavailable := answer{status: http.StatusServiceUnavailable, body: "try later"}
	ok := answer{status: http.StatusOK, body: oneSample}
	cases := []struct {
		name      string
		check     func(*http.Request) bool
		answers   []answer
		cfg       func(RemoteConfig) RemoteConfig
		want      float64
		wantErr   error
		wantMsg   string
		wantCalls int64
	}{
		{
			// The bearer token is sent; two 503s are retried, the third answer counts.
			name:    "bearer, 503 twice then success",
			check:   func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer s3cret" },
			answers: []answer{unavailable, unavailable, ok},
			cfg:     func(c RemoteConfig) RemoteConfig { c.BearerToken = "s3cret"; return c },
			want:    5, wantCalls: 3,
		},
		{
			// Basic auth is sent.
			name: "basic auth",
			check: func(r *http.Request) bool {
				u, p, ok := r.BasicAuth()
				return ok && u == "sre" && p == "pw"
			},
			answers: []answer{ok},
			cfg:     func(c RemoteConfig) RemoteConfig { c.Username, c.Password = "sre", "pw"; return c },
			want:    5, wantCalls: 1,
		},
		{
			// A wrong token is not retried and says what to check.
			name:    "wrong token",
			check:   func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer s3cret" },
			answers: []answer{ok},
			cfg:     func(c RemoteConfig) RemoteConfig { c.BearerToken = "wrong"; return c },
			wantErr: ErrServer, wantMsg: "HTTP 401 Unauthorized: unauthorized (check the bearer token or basic auth)", wantCalls: 1,
		},
		{
			// 429 with Retry-After is transient too.
			name:    "429 then success",
			answers: []answer{{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "0"}}, ok},
			cfg:     func(c RemoteConfig) RemoteConfig { return c },
			want:    5, wantCalls: 2,
		},
		{
			// The retries run out: the error says how many attempts were made.
			name:    "503 forever",
			answers: []answer{unavailable},
			cfg:     func(c RemoteConfig) RemoteConfig { c.Retries = 2; return c },
			wantErr: ErrServer, wantMsg: "HTTP 503 Service Unavailable: try later (after 3 attempts)", wantCalls: 3,
		},
		{
			// Negative Retries: one attempt only.
			name:    "no retries",
			answers: []answer{unavailable, ok},
			cfg:     func(c RemoteConfig) RemoteConfig { c.Retries = -1; return c },
			wantErr: ErrServer, wantCalls: 1,
		},
		{
			// A query error of the API is not retried and is a bad query.
			name:    "bad_data",
			answers: []answer{{status: http.StatusBadRequest, body: `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error: oops"}`}},
			cfg:     func(c RemoteConfig) RemoteConfig { return c },
			wantErr: ErrBadQuery, wantMsg: `bad query: invalid parameter "query": 1:5: parse error: oops`, wantCalls: 1,
		},
		{
			// Something that is not Prometheus answers 200 with HTML.
			name:    "not prometheus",
			answers: []answer{{status: http.StatusOK, body: "<html>hello</html>"}},
			cfg:     func(c RemoteConfig) RemoteConfig { return c },
			wantErr: ErrServer, wantMsg: "not a Prometheus API answer", wantCalls: 1,
		},
		{
			// A wrong path gives 404 with a hint.
			name:    "404",
			answers: []answer{{status: http.StatusNotFound, body: "404 page not found"}},
			cfg:     func(c RemoteConfig) RemoteConfig { return c },
			wantErr: ErrServer, wantMsg: "is the address the base URL of Prometheus?", wantCalls: 1,
		},
		{
			// An empty vector is no data.
			name:    "empty",
			answers: []answer{{status: http.StatusOK, body: `{"status":"success","data":{"resultType":"vector","result":[]}}`}},
			cfg:     func(c RemoteConfig) RemoteConfig { return c },
			wantErr: ErrNoData, wantMsg: `prometheus query "up": no data`, wantCalls: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeProm(t, c.check, c.answers...)
			r := mustRemote(t, c.cfg(fast(f.srv.URL)))
			got, err := r.Instant(context.Background(), "up", time.Now())
			if c.wantErr == nil {
				if err != nil || got != c.want {
					t.Errorf("Instant = %v, %v; want %v", got, err, c.want)
				}
			} else {
				var qe *QueryError
				if !errors.Is(err, c.wantErr) || !errors.As(err, &qe) || qe.Query != "up" {
					t.Errorf("err = %v, want a *QueryError wrapping %v", err, c.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), c.wantMsg) {
					t.Errorf("err = %q, want it to contain %q", err, c.wantMsg)
				}
				if c.wantErr == ErrServer && err != nil && !strings.Contains(err.Error(), "prometheus at "+f.srv.URL) {
					t.Errorf("err = %q does not name the address", err)
				}
			}
			if n := f.calls.Load(); n != c.wantCalls {
				t.Errorf("%d requests, want %d", n, c.wantCalls)
			}
		})
	}
}

func TestRemoteTimeout(t *testing.T) {
	verifyNoLeaks(t)
	release := make(chan struct{})
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select { // never answers; bounded by the client hanging up or the test ending
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	cfg := fast(srv.URL)
	cfg.Timeout = 200 * time.Millisecond
	r := mustRemote(t, cfg)
	_, err := r.Instant(context.Background(), "up", time.Now())
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "prometheus at "+srv.URL+": no answer within 200ms") {
		t.Errorf("err = %v, want ErrTimeout naming the address and 200ms", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1: a timeout is not retried", n)
	}
	// The caller's deadline wins over the Remote's timeout and is reported as such.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	cfg.Timeout = time.Minute
	r2 := mustRemote(t, cfg)
	_, err = r2.Range(ctx, "up", time.Now().Add(-time.Minute), time.Now(), time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("caller deadline: err = %v, want context.DeadlineExceeded", err)
	}
}

func TestRemoteUnreachable(t *testing.T) {
	verifyNoLeaks(t)
	addr := deadURL(t)
	r := mustRemote(t, fast(addr))
	ctx := context.Background()
	err := r.Ping(ctx)
	want := "prometheus at " + addr + ": unreachable: dial tcp " + strings.TrimPrefix(addr, "http://") + ": connect: connection refused"
	if !errors.Is(err, ErrUnreachable) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Ping: err = %v, want %q", err, want)
	}
	_, err = r.Instant(ctx, "up", time.Now())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), `prometheus query "up": `+want) {
		t.Errorf("Instant: err = %v", err)
	}
	// A cancelled context is the caller's, not Prometheus' fault.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = r.Instant(cctx, "up", time.Now())
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnreachable) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestRemoteTLS(t *testing.T) {
	verifyNoLeaks(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(oneSample))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes below are expected
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name    string
		tls     *tlsfiles.Files
		wantErr error
	}{
		// The server's certificate is trusted through the CA file.
		{"ca file", &tlsfiles.Files{CAFile: ca}, nil},
		// The CA file and a server name the certificate carries.
		{"server name", &tlsfiles.Files{CAFile: ca, ServerName: "example.com"}, nil},
		// Without the CA the handshake fails: unreachable, not retried forever.
		{"system roots", nil, ErrUnreachable},
		// A name the certificate does not carry.
		{"wrong name", &tlsfiles.Files{CAFile: ca, ServerName: "prometheus.invalid"}, ErrUnreachable},
		// Verification off.
		{"insecure", &tlsfiles.Files{InsecureSkipVerify: true}, nil},
	}
	for _, c := range cases {
		r := mustRemote(t, RemoteConfig{Address: srv.URL, TLS: c.tls, Retries: -1})
		v, err := r.Instant(ctx, "up", time.Now())
		if c.wantErr == nil && (err != nil || v != 5) {
			t.Errorf("%s: %v, %v", c.name, v, err)
		}
		if err != nil {
			t.Logf("%s: %v", c.name, err)
		}
		if c.wantErr != nil && !errors.Is(err, c.wantErr) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.wantErr)
		}
	}
}

func TestNewRemoteErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		cfg  RemoteConfig
		want string
	}{
		// A host without a scheme is not a URL the client can use.
		{"no scheme", RemoteConfig{Address: "prometheus:9090"}, "want a base URL"},
		// Empty.
		{"empty", RemoteConfig{}, "want a base URL"},
		// Only http and https.
		{"ftp", RemoteConfig{Address: "ftp://x"}, "want a base URL"},
		// One kind of auth.
		{"two auths", RemoteConfig{Address: "http://x", BearerToken: "t", Username: "u"}, "exclusive"},
		// The CA file must exist and hold a certificate.
		{"missing ca", RemoteConfig{Address: "https://x", TLS: &tlsfiles.Files{CAFile: filepath.Join(dir, "nope.pem")}}, "ca_file"},
		{"not pem", RemoteConfig{Address: "https://x", TLS: &tlsfiles.Files{CAFile: notPEM}}, "no PEM certificate"},
		// Certificate and key go together.
		{"cert without key", RemoteConfig{Address: "https://x", TLS: &tlsfiles.Files{CertFile: notPEM}}, "set both or neither"},
	}
	for _, c := range cases {
		_, err := NewRemote(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	// Range checks its arguments before sending anything.
	r := mustRemote(t, RemoteConfig{Address: "http://127.0.0.1:1"})
	now := time.Now()
	if _, err := r.Range(context.Background(), "up", now, now.Add(-time.Second), time.Second); !errors.Is(err, ErrBadQuery) {
		t.Errorf("end before start: err = %v", err)
	}
	if _, err := r.Range(context.Background(), "up", now, now, 0); !errors.Is(err, ErrBadQuery) {
		t.Errorf("zero step: err = %v", err)
	}
}

// A server (or proxy) that refuses POST gets the query again as GET, and
// the refusal does not count as the attempt's answer.
func TestRemoteGetFallback(t *testing.T) {
	verifyNoLeaks(t)
	var posts, gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		gets.Add(1)
		if r.URL.Query().Get("query") != "up" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(oneSample))
	}))
	defer srv.Close()
	r := mustRemote(t, fast(srv.URL))
	if v, err := r.Instant(context.Background(), "up", time.Now()); err != nil || v != 5 {
		t.Errorf("Instant = %v, %v", v, err)
	}
	if posts.Load() != 1 || gets.Load() != 1 {
		t.Errorf("%d POST and %d GET, want 1 and 1", posts.Load(), gets.Load())
	}
}

// An answer larger than 16 MiB is cut off after its limit, once, not
// read whole and not asked again: a hostile or broken server cannot take
// the run's memory (a 500 MiB answer took 1.89 GB and stalled the driver).
func TestRemoteAnswerIsBounded(t *testing.T) {
	verifyNoLeaks(t)
	var calls atomic.Int64
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}`))
		for range 500 { // 500 MiB of whitespace, unless the client hangs up
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		_, _ = w.Write([]byte("}"))
	}))
	defer srv.Close()
	r := mustRemote(t, fast(srv.URL))
	_, err := r.Instant(context.Background(), "up", time.Now())
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("err = %v, want ErrServer saying the answer is too large", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1: a too large answer is not asked again", n)
	}
	if s := sent.Load(); s > 64<<20 {
		t.Errorf("the server got %d MiB out before the client stopped reading", s>>20)
	}
}
