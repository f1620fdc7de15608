package staging_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

// startUWSGI starts uWSGI for the test's lifetime (TRIGGER_REQUIRE_UWSGI
// makes a missing uwsgi an error).
func startUWSGI(t *testing.T, cfg staging.UWSGIConfig) *staging.UWSGI {
	t.Helper()
	path, skip, err := staging.LookUWSGI(staging.RequireUWSGIEnv)
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip(skip)
	}
	cfg.Binary = path
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	u, err := staging.StartUWSGI(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("uwsgi log:\n%s", u.Log())
		}
		if err := u.Stop(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// One worker of one thread serves requests one at a time in arrival
// order: 20 requests sent at once at 50 ms each take about a second, and
// while they wait the stats server counts them in the backlog, so handled
// plus queued counts every request that arrived. The application's
// counters count only what the worker started.
func TestUWSGIQueuesInTheBacklog(t *testing.T) {
	u := startUWSGI(t, staging.UWSGIConfig{ServiceTime: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	before, err := u.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.URL+"/", nil)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	// While the worker works through them, most wait in the backlog.
	var mid staging.Stats
	for mid.Queued == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		if mid, err = u.Stats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := mid.Arrivals() - before.Arrivals(); got < n-2 || got > n {
		t.Errorf("handled + queued grew by %.0f while %d requests were in the service (handled %.0f, queued %.0f)", got, n, mid.Handled-before.Handled, mid.Queued)
	}
	wg.Wait()
	// uWSGI counts a request once its worker is done with it, which may be
	// a moment after the client read the response: the count is read
	// until it holds every request, or the context ends.
	after, err := u.Stats(ctx)
	for err == nil && after.Handled-before.Handled < n && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		after, err = u.Stats(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Handled - before.Handled; got != n || after.Queued != 0 {
		t.Errorf("after: handled %.0f (want %d), queued %.0f (want 0)", got, n, after.Queued)
	}
}
