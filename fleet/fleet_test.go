package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/fleet/fleettest"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/internal/testwait"
)

// scenario is a minimal scenario at a constant baseline (uniform
// arrivals), without Prometheus.
func scenario(url string, baseline float64, warmup string) []byte {
	return fmt.Appendf(nil, `
scenario "fleet" { max_duration = "1m" }
target {
  url         = "%s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "500ms"
  arrivals = "uniform"
  retry { max_retries = 1 }
}
service { capacity = 1000 }
load {
  baseline = %g
  warmup   = %q
  spike {
    multiplier = 2
    duration   = "1s"
  }
  observe = "5s"
}
`, url, baseline, warmup)
}

// okRT answers every attempt at once with an empty 200, without a network.
type okRT struct{}

func (okRT) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
}

// start launches a coordinator with agents as goroutines.
func start(t *testing.T, n int, src []byte, eng *fleettest.Engine) *fleet.Coordinator {
	t.Helper()
	c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: n, Engine: eng, File: "fleet.hcl", Source: src, Seed: 7,
		MaxInFlight: 100, MaxDuration: 30 * time.Second, JoinTimeout: 10 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.Launch(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// Three agents together plan and send what one driver would: a uniform
// constant stage of λ plans exactly λ a second, so every 10 s window of the
// merged timeline holds 10 λ first attempts within 1 %; the agents' drivers
// start within 10 ms of each other.
func TestFleetScheduleMatchesOneDriver(t *testing.T) {
	const rate = 300.0
	c := start(t, 3, scenario("http://127.0.0.1:1", rate, "30s"), &fleettest.Engine{Transport: okRT{}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testwait.For(t, 20*time.Second, 50*time.Millisecond, "11 merged seconds", func() bool { return len(c.TimelineSince(0)) >= 11 })
	cancel()
	if err := testwait.Receive(t, done, 10*time.Second, "the coordinator's Run to return"); err != nil {
		t.Fatal(err)
	}
	secs := c.TimelineSince(0)
	for from := 0; from+10 <= 11; from++ {
		var planned, sent int64
		for _, s := range secs[from : from+10] {
			planned += s.Planned
			sent += s.Sent
		}
		want := 10 * rate
		for what, got := range map[string]int64{"planned": planned, "sent": sent} {
			if dev := math.Abs(float64(got)/want - 1); dev > 0.01 {
				t.Errorf("seconds [%d, %d): %s %d first attempts, one driver plans %.0f (%.2f %% off)", from, from+10, what, got, want, 100*dev)
			}
		}
	}
	info := c.Info()
	skew := *info.StartSkewMS
	t.Logf("start skew %.3f ms; per agent %+v", skew, info.PerAgent)
	if skew >= 10 {
		t.Errorf("start skew %.1f ms, want under 10 ms", skew)
	}
	if info.Engine != "local" || info.Agents != 3 || len(info.PerAgent) != 3 {
		t.Errorf("info %+v", info)
	}
	for _, a := range info.PerAgent {
		if a.Sent < 900 || a.FirstOK == 0 {
			t.Errorf("%s sent %d (ok %d), want about a third each", a.Name, a.Sent, a.FirstOK)
		}
	}
}

// A killed agent is named, the run stops: Run returns ErrAgentLost as soon
// as the engine says the agent exited, without waiting out the silence.
func TestFleetLostAgentIsNamed(t *testing.T) {
	eng := &fleettest.Engine{Transport: okRT{}}
	c := start(t, 3, scenario("http://127.0.0.1:1", 100, "30s"), eng)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "2 merged seconds", func() bool { return len(c.TimelineSince(0)) >= 2 })
	killed := time.Now()
	eng.Kill(1)
	err := testwait.Receive(t, done, 10*time.Second, "Run to return after an agent was killed")
	t.Logf("Run returned %.2f s after the kill: %v", time.Since(killed).Seconds(), err)
	if !errors.Is(err, fleet.ErrAgentLost) || !strings.Contains(err.Error(), "agent-1") {
		t.Fatalf("Run = %v, want ErrAgentLost naming agent-1", err)
	}
	if info := c.Info(); info.PerAgent[1].Lost == "" || info.PerAgent[0].Lost != "" {
		t.Errorf("per agent %+v: want agent-1 alone lost", info.PerAgent)
	}
	if lost := c.Info().PerAgent[1].Lost; !strings.Contains(lost, "exited") || strings.Contains(lost, "no report for") {
		t.Errorf("agent-1 lost because %q; want the engine's exit, not the silence", lost)
	}
}

// When the coordinator dies, every agent stops sending within the silence
// (3 s) by itself: no request reaches the target after that.
func TestFleetAgentsStopWhenCoordinatorDies(t *testing.T) {
	tg := staging.StartRecordingTarget()
	defer tg.Stop()
	eng := &fleettest.Engine{}
	c := start(t, 3, scenario(tg.URL, 60, "30s"), eng)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() { _ = c.Run(ctx) }()
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "2 merged seconds", func() bool { return len(c.TimelineSince(0)) >= 2 })
	killed := time.Now()
	c.Kill()
	for i := range 3 {
		testwait.For(t, 6*time.Second, 20*time.Millisecond, fmt.Sprintf("agent %d to return", i), func() bool { return eng.Err(i) != nil })
		if err := eng.Err(i); !errors.Is(err, fleet.ErrCoordinatorLost) {
			t.Errorf("agent %d: %v, want ErrCoordinatorLost", i, err)
		}
	}
	after := tg.Last().Sub(killed)
	t.Logf("last request %.3f s after the coordinator died", after.Seconds())
	time.Sleep(300 * time.Millisecond)
	if got := tg.Last().Sub(killed); got > fleet.Silence+100*time.Millisecond {
		t.Errorf("a request came %.3f s after the coordinator died, want none after %s", got.Seconds(), fleet.Silence)
	}
}

// An agent whose scenario sends outside allow_hosts refuses before any
// load, and Launch names it.
func TestFleetAgentChecksAllowlist(t *testing.T) {
	src := []byte(strings.Replace(string(scenario("http://127.0.0.1:1", 10, "3s")), `allow_hosts = ["127.0.0.1"]`, `allow_hosts = ["127.0.0.1"]
  headers = { Host = "prod.example.com" }`, 1))
	c, err := fleet.NewCoordinator(fleet.Config{Agents: 2, Engine: &fleettest.Engine{Transport: okRT{}}, File: "f.hcl", Source: src, JoinTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	err = c.Launch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not allowed") || !strings.Contains(err.Error(), "agent-") {
		t.Fatalf("Launch = %v, want an allowlist refusal naming the agent", err)
	}
}
