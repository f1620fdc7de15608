package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/fleet/fleettest"
	"github.com/trigger-test/trigger/scenarios"
)

// fleetSecretsScenario sends one secret in its load (a header), uses one
// in an on_trap command, and posts its outcome to a webhook.
const fleetSecretsScenario = `
variable "api_token" { sensitive = true }
variable "ops_secret" { sensitive = true }
scenario "agents" { max_duration = "1m" }
target {
  url         = "http://127.0.0.1:1/work"
  allow_hosts = ["127.0.0.1"]
  headers     = { Authorization = "Bearer ${var.api_token}" }
}
client { timeout = "500ms" }
service { capacity = 1000 }
load {
  baseline = 10
  warmup   = "3s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
  observe = "5s"
}
on_trap {
  action  = "command"
  command = ["restart"]
  env     = { OPS_SECRET = var.ops_secret }
  observe = "5s"
}
notify { webhook = "https://hooks.example.com/services/T0/B0/webhook-secret-path" }
`

// assignments keeps the assignment bodies its agents receive (after TLS:
// what the agents read).
type assignments struct {
	mu     sync.Mutex
	bodies [][]byte
	rt     http.RoundTripper
}

func (a *assignments) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(r)
	if err != nil || r.URL.Path != fleet.AssignmentPath {
		return resp, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	a.mu.Lock()
	a.bodies = append(a.bodies, b)
	a.mu.Unlock()
	return resp, err
}

// The run sends its agents the scenario without what their load does not
// use: the assignments carry no webhook and no value of a sensitive
// variable only an on_trap command uses; the header's secret, which the
// load sends, is there.
func TestFleetAgentsGetNoSecretTheyDoNotUse(t *testing.T) {
	vars := map[string]string{"api_token": "load-token-456", "ops_secret": "ops-secret-789"}
	s, err := scenarios.Parse("agents.hcl", []byte(fleetSecretsScenario), vars)
	if err != nil {
		t.Fatal(err)
	}
	got := &assignments{}
	eng := &fleettest.Engine{Transport: okRT{}, Edit: func(c *fleet.AgentConfig) {
		wrap := c.WrapTransport
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			got.mu.Lock()
			got.rt = wrap(rt)
			got.mu.Unlock()
			return got
		}
	}}
	opts := Options{Test: testOf(t, s), Logf: t.Logf, Fleet: &FleetOptions{Engine: eng, Agents: 1, File: "agents.hcl",
		Source: []byte(fleetSecretsScenario), Vars: vars, JoinTimeout: 10 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := startFleet(ctx, opts)
	if c != nil {
		defer closeFleet(ctx, c, t.Logf)
	}
	if err != nil {
		t.Fatal(err)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.bodies) != 1 {
		t.Fatalf("%d assignments read, want 1", len(got.bodies))
	}
	var asg fleet.Assignment
	if err := json.Unmarshal(got.bodies[0], &asg); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	body.Write(asg.Source)
	for k, v := range asg.Vars {
		body.WriteString("\n" + k + "=" + v)
	}
	if !strings.Contains(body.String(), "allow_hosts") {
		t.Fatalf("assignment %q holds no scenario", body.String())
	}
	for what, secret := range map[string]string{"the webhook": "hooks.example.com", "the webhook's path": "webhook-secret-path",
		"the on_trap command's secret": "ops-secret-789"} {
		if strings.Contains(body.String(), secret) {
			t.Errorf("the agents got %s", what)
		}
	}
	if !strings.Contains(body.String(), "load-token-456") {
		t.Error("the agents lack the header's secret, which their load sends")
	}
}

// okRT answers every attempt at once with an empty 200, without a network.
type okRT struct{}

func (okRT) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
}
