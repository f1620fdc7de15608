package fleet_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/scenarios"
)

// secretsScenario uses one secret in its load (a header), one in an
// on_trap command, and builds its webhook from a variable.
const secretsScenario = `
variable "api_token" { sensitive = true }
variable "ops_secret" {
  sensitive = true
  default   = "ops-default-secret-123"
}
variable "hook_path" { default = "T000/B000/hookpath-secret" }
scenario "agents" { max_duration = "1m" }
target {
  url         = "http://127.0.0.1:1/work"
  allow_hosts = ["127.0.0.1"]
  headers     = { Authorization = "Bearer ${var.api_token}" }
}
client {
  timeout = "500ms"
  retry { max_retries = 1 }
}
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
notify { webhook = "https://hooks.example.com/services/${var.hook_path}" }
`

// The scenario the agents get leaves out what their load does not use:
// no notify block, no webhook, and a sensitive variable used only by an
// on_trap command reads "(sensitive)", in its default and its --var value;
// the one the load sends (a header) is kept, so the agents' load is the
// run's.
func TestAgentScenarioLeavesOutWhatTheLoadDoesNotUse(t *testing.T) {
	vars := map[string]string{"api_token": "load-token-456", "ops_secret": "ops-override-secret-789"}
	s, err := scenarios.Parse("agents.hcl", []byte(secretsScenario), vars)
	if err != nil {
		t.Fatal(err)
	}
	src, agentVars, err := fleet.AgentScenario(s, vars)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("agent scenario:\n%s\nvars %q", src, agentVars)
	sent := string(src) + strings.Join(mapValues(agentVars), "\n")
	for what, secret := range map[string]string{"the webhook's host": "hooks.example.com", "the webhook's path": "hookpath-secret",
		"an unused secret's default": "ops-default-secret-123", "an unused secret's --var value": "ops-override-secret-789", "the notify block": "notify"} {
		if strings.Contains(sent, secret) {
			t.Errorf("the agents get %s", what)
		}
	}
	if agentVars["api_token"] != "load-token-456" {
		t.Errorf("api_token = %q: the load sends it, the agents need it", agentVars["api_token"])
	}
	// What the agents read gives the run's load.
	as, err := scenarios.Parse("agents.hcl", src, agentVars)
	if err != nil {
		t.Fatal(err)
	}
	at, err := convert.New(as)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := convert.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(at.Driver, rt.Driver) {
		t.Errorf("the agents' load differs from the run's: %+v vs %+v", at.Driver.Request, rt.Driver.Request)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
