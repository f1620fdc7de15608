package specimen_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

func TestStartLoopback(t *testing.T) {
	t.Parallel()
	s, err := specimen.StartLoopback(t.Context(), specimen.Config{Pods: 1, PodRate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	for _, path := range []string{"/healthz", "/work"} {
		if status, err := get(t.Context(), s.URL+path); err != nil || status != http.StatusOK {
			t.Errorf("GET %s: %d, %v; want 200", path, status, err)
		}
	}
	if got := s.Server.Stats().Ingress(); got != 1 {
		t.Errorf("ingress %d after one /work; want 1", got)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := get(t.Context(), s.URL+"/healthz"); err == nil {
		t.Error("the specimen still answers after Stop")
	}
}

// get sends one GET and returns its status.
func get(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
