package staging_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/staging"
)

func TestStartSpecimen(t *testing.T) {
	t.Parallel()
	s, err := staging.StartSpecimen(t.Context(), specimen.Config{Pods: 1, PodRate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	for _, path := range []string{"/healthz", "/work"} {
		if status, err := get(t.Context(), s.URL+path, "", 0); err != nil || status != http.StatusOK {
			t.Errorf("GET %s: %d, %v; want 200", path, status, err)
		}
	}
	if got := s.Server.Stats().Ingress(); got != 1 {
		t.Errorf("ingress %d after one /work; want 1", got)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := get(t.Context(), s.URL+"/healthz", "", 0); err == nil {
		t.Error("the specimen still answers after Stop")
	}
}

// The stack composes: haproxy in front of the specimen forwards /work,
// and the specimen's counters see it.
func TestSpecimenBehindHAProxy(t *testing.T) {
	t.Parallel()
	s, err := staging.StartSpecimen(t.Context(), specimen.Config{Pods: 1, PodRate: 1000})
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
