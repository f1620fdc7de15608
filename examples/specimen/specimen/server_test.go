package specimen

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/testwait"
)

// startLoopback serves cfg on 127.0.0.1 and returns its base URL.
func startLoopback(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := testwait.Receive(t, done, 30*time.Second, "Serve to return after its context ended"); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s, "http://" + ln.Addr().String()
}

func get(t *testing.T, url string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestHTTPEndpoints(t *testing.T) {
	s, base := startLoopback(t, Config{PodRate: 1000, AdmissionBound: time.Millisecond, RetryAfter: 1500 * time.Millisecond,
		Gateway: GatewayConfig{Enabled: true, Retries: 1}})
	if resp, body := get(t, base+"/healthz", nil); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("healthz %d %q", resp.StatusCode, body)
	}
	// b = 1 ms at 1000/s holds one request: sequential requests pass.
	for _, a := range []string{"1", "2", "0"} {
		if resp, body := get(t, base+"/work", map[string]string{HeaderAttempt: a}); resp.StatusCode != 200 || body != "ok\n" {
			t.Fatalf("work %d %q", resp.StatusCode, body)
		}
	}
	st := s.Stats()
	if st.IngressFirst != 1 || st.IngressRetry != 1 || st.IngressTracer != 1 || st.Answered != 3 || st.GatewayRequests["ok"] != 3 {
		t.Fatalf("stats %+v", st)
	}
	_, body := get(t, base+"/metrics", nil)
	for _, name := range []string{
		`specimen_ingress_total{kind="first"} 1`,
		`specimen_ingress_total{kind="retry"} 1`,
		`specimen_ingress_total{kind="tracer"} 1`,
		`specimen_served_total{result="answered"} 3`,
		`specimen_served_total{result="abandoned"} 0`,
		`specimen_rejected_total{reason="admission"} 0`,
		`specimen_rejected_total{reason="deadline"} 0`,
		`specimen_rejected_total{reason="disconnect"} 0`,
		`specimen_rejected_total{reason="codel"} 0`,
		`specimen_rejected_total{reason="limit"} 0`,
		`specimen_rejected_total{reason="queue_full"} 0`,
		"specimen_queue_depth 0",
		"specimen_queue_wait_seconds_count 3",
		"specimen_queue_wait_estimate_seconds 0",
		"specimen_busy_ratio ",
		"specimen_pods_ready 1",
		"specimen_pods_desired 1",
		`specimen_gateway_requests_total{outcome="ok"} 3`,
		"specimen_gateway_upstream_attempts_total 3",
	} {
		if !strings.Contains(body, "\n"+name) {
			t.Errorf("/metrics lacks %q", name)
		}
	}
}

func TestHTTPAdmissionRefusal(t *testing.T) {
	// One pod at 1/s with b = 1 s: the first request occupies the pod for a
	// second, and the second would exceed the bound.
	s, base := startLoopback(t, Config{PodRate: 1, AdmissionBound: time.Second, RetryAfter: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/work", nil)
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	testwait.For(t, 10*time.Second, time.Millisecond, "the first request inside", func() bool { return s.Stats().Ingress() > 0 })
	resp, body := get(t, base+"/work", nil)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get(HeaderReason) != "admission" || body != "admission\n" {
		t.Fatalf("refusal %d %v %q", resp.StatusCode, resp.Header, body)
	}
}

// A "/work?cost=F" request asks for F times the plain service time,
// within bounds; anything else is a plain request.
func TestCostOf(t *testing.T) {
	for q, want := range map[string]float64{"": 1, "cost=3": 3, "a=1&cost=0.5": 0.5, "cost=1e9": maxCost, "cost=0": minCost,
		"cost=NaN": 1, "cost=x": 1, "cost=%zz": 1, "costly=2": 1} {
		if got := costOf(q); got != want {
			t.Errorf("costOf(%q) = %g; want %g", q, got, want)
		}
	}
}
