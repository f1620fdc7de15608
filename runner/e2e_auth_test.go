package runner

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/scenarios"
)

// authTarget is a loopback service that answers 200 until it refuses
// credentials: from the start (refuseFromStart), or once it has seen the
// spike (more than spikeAt requests within a quarter of a second), as a
// token that expires under load would.
type authTarget struct {
	url             string
	refuseFromStart bool
	spikeAt         int64

	refusing atomic.Bool
	mu       sync.Mutex
	window   time.Time
	inWindow int64
}

func startAuthTarget(t *testing.T, refuseFromStart bool, spikeAt int64) *authTarget {
	t.Helper()
	a := &authTarget{refuseFromStart: refuseFromStart, spikeAt: spikeAt}
	a.refusing.Store(refuseFromStart)
	a.url = serveLoopback(t, a)
	return a
}

func (a *authTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.refusing.Load() {
		a.mu.Lock()
		now := time.Now()
		if now.Sub(a.window) > 250*time.Millisecond {
			a.window, a.inWindow = now, 0
		}
		a.inWindow++
		if a.inWindow > a.spikeAt {
			a.refusing.Store(true)
		}
		a.mu.Unlock()
	}
	if a.refusing.Load() {
		http.Error(w, "token expired", http.StatusUnauthorized)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// authScenario drives the target at 20/s with a fivefold spike and no
// metrics: what the clients see is all the run has.
func authScenario(t *testing.T, url string) *scenarios.Scenario {
	t.Helper()
	src := `
scenario "auth" { max_duration = "1m" }
target {
  url         = "` + url + `/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "500ms"
  arrivals = "uniform"
}
service { capacity = 1000 }
load {
  baseline = 20
  warmup   = "3s"
  spike {
    multiplier = 5
    duration   = "2s"
  }
  observe = "8s"
}
recovery { hold = "2s" }
`
	s, err := scenarios.Parse("auth.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Credentials refused during the warmup stop the run before any spike.
func TestCredentialsRefusedInTheWarmupStopTheRun(t *testing.T) {
	skipShort(t)
	a := startAuthTarget(t, true, 0)
	started := time.Now()
	res, err := runE2E(t, context.Background(), authScenario(t, a.url))
	if !errors.Is(err, ErrCredentialsRefused) {
		t.Fatalf("err = %v; want credentials refused", err)
	}
	for _, row := range res.Timeline {
		if row.Phase != analysis.PhaseWarmup {
			t.Fatalf("row %g in phase %s: the run went past the warmup", row.TS, row.Phase)
		}
	}
	t.Logf("stopped after %s", time.Since(started).Round(time.Millisecond))
}
