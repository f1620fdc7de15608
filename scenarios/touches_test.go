package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// everything is a scenario touching every kind of thing outside its
// process: a remote Prometheus with a token from the environment, a stop
// condition on another server with basic auth, a webhook, a sensitive
// header, a fault's commands, an on_trap command, a data file and TLS
// files.
const everything = `
variable "token" {
  default   = "t0ken"
  sensitive = true
}
variable "hook" {
  default = "https://hooks.example.com/services/T0/B0/secretpath"
}
scenario "all" {}
data "users" { file = "users.csv" }
target {
  url         = "https://api.staging:8443/checkout?u=${data.users.name}"
  headers     = { Authorization = "Bearer ${var.token}" }
  allow_hosts = ["api.staging"]
  tls { ca_file = "ca.pem" }
}
client { timeout = "1s" }
service { capacity = 100 }
load { baseline = 10 }
fault "half" {
  start    = ["kubectl", "scale", "deploy/api", "--replicas=1"]
  stop     = ["kubectl", "scale", "deploy/api", "--replicas=2"]
  duration = "10s"
  capacity = 0.5
}
prometheus {
  address = "http://prom.staging:9090"
  ingress = "sum(rate(x[1m]))"
  auth { bearer_token_env = "PROM_TOKEN" }
}
stop_when "burn" {
  query   = "up == 0"
  address = "https://slo.staging"
  auth {
    username_env = "SLO_USER"
    password_env = "SLO_PASS"
  }
}
on_trap {
  action  = "command"
  command = ["sh", "-c", "echo trapped\r\u001b[2K"]
}
notify { webhook = var.hook }
`

// TestTouches: everything a scenario touches outside the process is
// listed, each secret with where it goes, without showing a secret.
func TestTouches(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "users.csv"), "name\nann\n")
	writeFile(t, filepath.Join(dir, "ca.pem"), "a stand-in")
	s, err := Parse(filepath.Join(dir, "all.hcl"), []byte(everything), nil)
	if err != nil {
		t.Fatal(err)
	}
	tc := s.Touches
	eq(t, "hosts", tc.Hosts, []HostUse{
		{"https://api.staging:8443", "load"},
		{"http://prom.staging:9090", "queries"},
		{"https://slo.staging:443", `the stop condition "burn"`},
		{"https://hooks.example.com:443", "the outcome (notify)"},
	})
	eq(t, "commands", len(tc.Commands), 3)
	eq(t, "start", tc.Commands[0].When, `fault "half" start`)
	eq(t, "start dir", tc.Commands[0].Dir, dir)
	eq(t, "on_trap argv", tc.Commands[2].Argv[2], "echo trapped\r\x1b[2K")
	eq(t, "files", tc.Files, []FileUse{
		{filepath.Join(dir, "users.csv"), `data "users"`},
		{filepath.Join(dir, "ca.pem"), "target.tls ca_file"},
	})
	eq(t, "secrets", tc.Secrets, []SecretUse{
		{What: "environment variable PROM_TOKEN", Origin: "http://prom.staging:9090", Host: "prom.staging", As: "bearer token"},
		{What: "environment variable SLO_USER", Origin: "https://slo.staging:443", Host: "slo.staging", As: "basic auth user"},
		{What: "environment variable SLO_PASS", Origin: "https://slo.staging:443", Host: "slo.staging", As: "basic auth password"},
		{What: "the webhook URL", Origin: "https://hooks.example.com:443", Host: "hooks.example.com", As: "the URL posted to"},
		{What: "sensitive variable token", Origin: "https://api.staging:8443", Host: "api.staging", As: "in target.headers"},
	})
	for _, h := range tc.Hosts {
		if strings.Contains(h.Origin, "secretpath") {
			t.Errorf("a host shows the webhook's path: %s", h.Origin)
		}
	}
}

// withFault is withSecret with a fault (its start's arguments and its
// env given) instead of the spike, and an on_trap command (its argv
// given).
func withFault(start, env, onTrap string) string {
	src := strings.Replace(withSecret, "load {", `fault "f" {
  start    = `+start+`
  stop     = ["kubectl", "scale"]
  `+env+`
  duration = "5s"
  capacity = 0.5
}
on_trap {
  action  = "command"
  command = `+onTrap+`
}
load {`, 1)
	return strings.Replace(src, "  spike {\n    multiplier = 2\n    duration   = \"5s\"\n  }\n", "", 1)
}

// TestSecretInCommandLineRefused: a value computed from a sensitive
// variable (or from a variable a webhook is built from) in a fault's or an
// on_trap command's argv is refused where it is written, pointing at env:
// a command's arguments are public (ps) and logged in fault.log.
func TestSecretInCommandLineRefused(t *testing.T) {
	for _, tc := range []struct {
		name, start, onTrap string
		line                int
	}{
		{"fault start", `["kubectl", "--token=${var.token}", "scale"]`, `["true"]`, 15},
		{"on_trap command", `["kubectl"]`, `["sh", "-c", "curl -H 'X: ${var.token}' x"]`, 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.hcl", []byte(withFault(tc.start, "", tc.onTrap)), nil)
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %v; want the secret in a command line refused", err)
			}
			found := false
			for _, d := range perr.Diagnostics {
				if d.Summary == "Secret in a command line" && d.Subject != nil && d.Subject.Start.Line == tc.line && strings.Contains(d.Detail, "env = {") {
					found = true
				}
			}
			if !found {
				t.Errorf("no \"Secret in a command line\" at s.hcl:%d pointing at env: %v", tc.line, err)
			}
			if strings.Contains(err.Error(), "dflt-t0ken-value") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
	hook := `variable "hook" { default = "https://hooks.example.com/x/secretpath" }
notify { webhook = var.hook }
` + withFault(`["curl", var.hook]`, "", `["true"]`)
	if _, err := Parse("s.hcl", []byte(hook), nil); err == nil || !strings.Contains(err.Error(), "Secret in a command line") {
		t.Errorf("a webhook's variable in argv: %v; want refused", err)
	}
}

// TestSecretInCommandEnv: a sensitive value handed to a fault's commands
// through env is listed as handed to them, in that environment variable;
// the commands list the env's names, never the values.
func TestSecretInCommandEnv(t *testing.T) {
	src := withFault(`["sh", "-c", "kubectl --token=\"$TOKEN\" scale"]`, `env = { TOKEN = var.token, REPLICAS = "2" }`, `["true"]`)
	s, err := Parse("s.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var local []SecretUse
	for _, u := range s.Touches.Secrets {
		if u.Local != "" {
			local = append(local, u)
		}
	}
	eq(t, "local", local, []SecretUse{{What: "sensitive variable token", Local: `fault "f" start and stop`, As: "in environment variable TOKEN"}})
	eq(t, "start env", s.Touches.Commands[0].Env, []string{"REPLICAS", "TOKEN"})
	eq(t, "fault env", s.Fault.Env, map[string]string{"TOKEN": "dflt-t0ken-value", "REPLICAS": "2"})
	bad := withFault(`["true"]`, `env = { "NOT-A-NAME" = "x" }`, `["true"]`)
	if _, err := Parse("s.hcl", []byte(bad), nil); err == nil || !strings.Contains(err.Error(), "Invalid environment variable name") {
		t.Errorf("a bad env name: %v; want refused", err)
	}
}

// TestCheckSecretHosts: a secret bound for a host the operator did not
// list is refused, whatever the scenario's allow_hosts say; listing the
// host (in any spelling HostAllowed accepts) lets it through.
func TestCheckSecretHosts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "users.csv"), "name\nann\n")
	writeFile(t, filepath.Join(dir, "ca.pem"), "a stand-in")
	s, err := Parse(filepath.Join(dir, "all.hcl"), []byte(everything), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		allowed []string
		refused int
	}{
		// Nothing listed: every secret is refused.
		{"none", nil, 5},
		// The scenario's own allow_hosts are not the operator's list.
		{"allow_hosts only", []string{"api.staging"}, 4},
		{"all", []string{"API.staging.", "prom.staging", "slo.staging", "hooks.example.com"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSecretHosts(s.Touches, tc.allowed)
			var se *SecretHostsError
			if tc.refused == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SecretHostsError", err)
			}
			eq(t, "refused", len(se.Refused), tc.refused)
			if msg := err.Error(); strings.Contains(msg, "t0ken") || strings.Contains(msg, "secretpath") {
				t.Errorf("the error shows a secret: %s", msg)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSecretInScrapeAndServerName: a sensitive value in a scrape URL (its
// query string is sent with every scrape) or in target.tls.server_name
// (sent in clear in the TLS handshake, SNI) is listed as sent there, so a
// run needs --secret-hosts for it.
func TestSecretInScrapeAndServerName(t *testing.T) {
	noHeader := strings.Replace(withSecret, `  headers     = { Authorization = "Bearer ${var.token}" }`+"\n", "", 1)
	for _, tc := range []struct {
		name, from, to string
		want           SecretUse
	}{
		{"scrape", "service { capacity = 100 }", `service { capacity = 100 }
prometheus {
  scrape  = ["http://127.0.0.1:19090/metrics?t=${var.token}"]
  ingress = "q"
}`, SecretUse{What: "sensitive variable token", Origin: "http://127.0.0.1:19090", Host: "127.0.0.1", As: "in prometheus.scrape"}},
		{"server_name", `  url         = "http://127.0.0.1:8080/"`, `  url         = "https://127.0.0.1:8443/"
  tls { server_name = "${var.token}.example" }`,
			SecretUse{What: "sensitive variable token", Origin: "https://127.0.0.1:8443", Host: "127.0.0.1", As: "in target.tls.server_name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(noHeader, tc.from, tc.to, 1)
			s, err := Parse("s.hcl", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "secrets", s.Touches.Secrets, []SecretUse{tc.want})
			if err := CheckSecretHosts(s.Touches, nil); err == nil {
				t.Errorf("CheckSecretHosts(no --secret-hosts) = nil; want the secret refused")
			}
		})
	}
}

// TestCommandEnvNamesRefused: a command's env names are literal names
// known when the scenario is read (a name computed from a sensitive
// variable would be written in clear to fault.log and the journal), and
// never one the dynamic loader or a shell or interpreter reads (PATH,
// LD_PRELOAD, BASH_ENV…): the command line shown must be what runs. Each
// is refused at its line, without showing the secret.
func TestCommandEnvNamesRefused(t *testing.T) {
	for _, tc := range []struct {
		name, env, summary string
	}{
		{"sensitive name", `env = { "${var.token}" = "1" }`, "Environment variable name not literal"},
		{"computed name", `env = { "${"A"}B" = "1" }`, "Environment variable name not literal"},
		{"parenthesised name", `env = { (var.token) = "1" }`, "Environment variable name not literal"},
		{"not written out", `env = var.token == "" ? {} : { A = "1" }`, "Environment variable names not written out"},
		{"PATH", `env = { PATH = "/tmp/evil" }`, "Environment variable not allowed"},
		{"LD_PRELOAD", `env = { "LD_PRELOAD" = "/tmp/evil.so" }`, "Environment variable not allowed"},
		{"DYLD_INSERT_LIBRARIES", `env = { DYLD_INSERT_LIBRARIES = "x" }`, "Environment variable not allowed"},
		{"BASH_ENV", `env = { TOKEN = var.token, BASH_ENV = "/tmp/x" }`, "Environment variable not allowed"},
		{"IFS", `env = { IFS = "/" }`, "Environment variable not allowed"},
		{"PYTHONPATH", `env = { PYTHONPATH = "/tmp" }`, "Environment variable not allowed"},
		{"NODE_OPTIONS", `env = { NODE_OPTIONS = "--require /tmp/x.js" }`, "Environment variable not allowed"},
		{"GCONV_PATH", `env = { GCONV_PATH = "/tmp" }`, "Environment variable not allowed"},
		{"lower-case path", `env = { path = "/tmp" }`, "Environment variable not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.hcl", []byte(withFault(`["true"]`, tc.env, `["true"]`)), nil)
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %v; want %q", err, tc.summary)
			}
			found := false
			for _, d := range perr.Diagnostics {
				if d.Summary == tc.summary && d.Subject != nil && d.Subject.Start.Line == 17 {
					found = true
				}
			}
			if !found {
				t.Errorf("no %q at s.hcl:17: %v", tc.summary, err)
			}
			if strings.Contains(err.Error(), "dflt-t0ken-value") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
	ok := withFault(`["true"]`, `env = { TOKEN = var.token, "MODE" = "x", PATHS = "ok", MY_LD_X = "ok" }`, `["true"]`)
	if _, err := Parse("s.hcl", []byte(ok), nil); err != nil {
		t.Errorf("literal, harmless names: %v", err)
	}
}

// TestSecretInHostNameRefused: a URL whose host name holds a sensitive
// value (looked up in DNS, sent in SNI, named in plan and result.json) is
// refused where it is written, without showing the value; and should one
// reach Touches, its hosts show the value as SensitiveValue and
// CheckSecretHosts refuses it whatever --secret-hosts lists.
func TestSecretInHostNameRefused(t *testing.T) {
	noHeader := strings.Replace(withSecret, `  headers     = { Authorization = "Bearer ${var.token}" }`+"\n", "", 1)
	vars := map[string]string{"token": "sekret123"}
	for _, tc := range []struct {
		name, from, to string
		line           int
	}{
		{"target.url", `  url         = "http://127.0.0.1:8080/"
  allow_hosts = ["127.0.0.1"]`, `  url         = "http://${var.token}.localhost:18080/work"
  allow_hosts = ["sekret123.localhost"]`, 8},
		{"prometheus.address", "service { capacity = 100 }", `service { capacity = 100 }
prometheus {
  address = "http://${var.token}.localhost:9090"
  ingress = "q"
}`, 14},
		{"notify.webhook", "service { capacity = 100 }", `service { capacity = 100 }
notify { webhook = "https://${var.token}.example.com/hook" }`, 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(noHeader, tc.from, tc.to, 1)
			_, err := Parse("s.hcl", []byte(src), vars)
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %v; want the secret in a host name refused", err)
			}
			found := false
			for _, d := range perr.Diagnostics {
				if d.Summary == "Secret in a host name" && d.Subject != nil && d.Subject.Start.Line == tc.line && strings.Contains(d.Detail, "sensitive variable token") {
					found = true
				}
			}
			if !found {
				t.Errorf("no \"Secret in a host name\" at s.hcl:%d: %v", tc.line, err)
			}
			if strings.Contains(strings.ToLower(err.Error()), "sekret123") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}

	// Touches, should such a URL get past the reader.
	d := &decoder{sensitiveVars: map[string]bool{"token": true}, ctx: &hcl.EvalContext{Variables: map[string]cty.Value{
		"var": cty.ObjectVal(map[string]cty.Value{"token": cty.StringVal("sekret123")})}}}
	tc := Touches{
		Hosts:   []HostUse{{Origin: "http://SEKRET123.localhost:18080", For: "load"}},
		Secrets: []SecretUse{{What: "sensitive variable token", Origin: "http://sekret123.localhost:18080", Host: "sekret123.localhost", As: "in target.url"}},
	}
	d.hideSecretHosts(&tc)
	eq(t, "host", tc.Hosts[0].Origin, "http://(sensitive).localhost:18080")
	eq(t, "secret", tc.Secrets[0], SecretUse{What: "sensitive variable token", Origin: "http://(sensitive).localhost:18080", Host: "(sensitive).localhost", As: "in target.url"})
	err := CheckSecretHosts(tc, []string{"(sensitive).localhost", "*"})
	if err == nil || strings.Contains(err.Error(), "sekret123") {
		t.Errorf("CheckSecretHosts = %v; want the host refused without the secret", err)
	}
}
