package staging_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

// The Python server counts every request it starts and ends, in its counts
// file and in its prometheus_client metrics, works requests side by side
// (a thread each: ten requests of a 200 ms floor take about 200 ms, not
// two seconds), and its readiness checks count nothing.
func TestPyServerCountsItsRequests(t *testing.T) {
	if skip, err := staging.LookPyServer(staging.RequireUWSGIEnv); err != nil {
		t.Fatal(err)
	} else if skip != "" {
		t.Skip(skip)
	}
	s, err := staging.StartPyServer(t.Context(), staging.PyServerConfig{Floor: 200 * time.Millisecond, Work: time.Millisecond, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pyserver log:\n%s", s.Log())
		}
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const n = 10
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Go(func() {
			if code, err := get(ctx, s.URL+"/work", "1", 10*time.Second); err != nil || code != http.StatusOK {
				t.Errorf("GET: %d, %v", code, err)
			}
		})
	}
	wg.Wait()
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("%d requests of a 200 ms floor side by side took %s", n, took)
	}
	c, err := s.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if c.Started != n || c.Served != n || c.Queued != 0 {
		t.Errorf("counts %+v, want %d started and served, none queued", c, n)
	}
	resp, err := http.Get("http://" + s.MetricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"pyapp_requests_total 10.0\n", "pyapp_served_total 10.0\n", "pyapp_in_flight 0.0\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in the metrics:\n%s", want, body)
		}
	}
}

// haproxy's frontend counters, read from its exporter, count the requests
// it received.
func TestHAProxyFrontendCounts(t *testing.T) {
	up := startUpstream(t, 0)
	h := startHAProxy(t, staging.HAProxyConfig{Upstream: up.addr(), TryTimeout: time.Second, Exporter: true})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	before, err := h.FrontendCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if code, err := get(ctx, h.URL+"/x", "1", 5*time.Second); err != nil || code != http.StatusOK {
			t.Fatalf("GET: %d, %v", code, err)
		}
	}
	after, err := h.FrontendCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Requests - before.Requests; got != 3 {
		t.Errorf("requests grew by %.0f, want 3", got)
	}
	if got := after.Connections - before.Connections; got != 3 {
		t.Errorf("connections grew by %.0f, want 3 (a client each)", got)
	}
}
