package runner

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// The audit's reproductions, with --yes and no other consent: a fault's
// start command did run ("ran as root"), and a prometheus block naming a
// CI secret as its bearer token, at an address the scenario's own
// allow_hosts let through, carried the secret there 37 times. Without the
// operator's --allow-commands and --secret-hosts the run refuses before
// anything happens: no command, no request with the secret, no load.
func TestRunRefusesWhatTheOperatorDidNotAllow(t *testing.T) {
	var target, prom atomic.Int64
	targetURL := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { target.Add(1) }))
	var withSecret atomic.Int64
	promURL := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prom.Add(1)
		if strings.Contains(r.Header.Get("Authorization"), "ci-deploy-secret") {
			withSecret.Add(1)
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	promURL = strings.Replace(promURL, "127.0.0.1", "localhost", 1)
	marker := filepath.Join(t.TempDir(), "ran")
	const base = `
scenario "hostile" {}
target {
  url         = "%s/work"
  allow_hosts = ["127.0.0.1", "localhost"]
}
client { timeout = "500ms" }
service { capacity = 100 }
`
	fault := fmt.Sprintf(`
load {
  baseline = 10
  warmup   = "1s"
  observe  = "2s"
}
fault "root" {
  start    = ["touch", %q]
  stop     = ["true"]
  duration = "1s"
  capacity = 0.5
}`, marker)
	secret := fmt.Sprintf(`
load {
  baseline = 10
  warmup   = "1s"
  observe  = "2s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
}
prometheus {
  address = %q
  ingress = "sum(rate(x[5s]))"
  auth { bearer_token_env = "CI_DEPLOY_SECRET" }
}`, promURL)
	getenv := func(name string) string {
		if name == "CI_DEPLOY_SECRET" {
			return "ci-deploy-secret"
		}
		return ""
	}
	for _, tc := range []struct {
		name    string
		extra   string
		consent convert.Consent
		want    string
	}{
		// --yes alone runs no command.
		{"command", fault, convert.Consent{SecretHosts: []string{"localhost"}}, "--allow-commands"},
		// The scenario's allow_hosts do not let a secret go anywhere.
		{"secret", secret, convert.Consent{AllowCommands: true, SecretHosts: []string{"127.0.0.1"}}, "--secret-hosts localhost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(base, targetURL) + tc.extra
			s, err := scenarios.Parse(filepath.Join(t.TempDir(), "hostile.hcl"), []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, StateDir: t.TempDir(),
				Getenv: getenv, Consent: tc.consent})
			var re *Error
			if !errors.As(err, &re) || re.Kind != KindUsage || !errors.Is(err, convert.ErrNoConsent) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want a usage error naming %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "ci-deploy-secret") {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the fault's start command ran")
	}
	if target.Load() != 0 || prom.Load() != 0 || withSecret.Load() != 0 {
		t.Errorf("sent %d attempts, %d queries (%d with the secret); want none", target.Load(), prom.Load(), withSecret.Load())
	}
}

// A Prometheus that echoes the Authorization header in its error put the
// operator's Basic credentials (base64 of user:password) in the run's
// error and log. They are redacted now, in every form they take on the
// wire, as the password itself is.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	promURL := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad request from "+r.Header.Get("Authorization"), http.StatusBadRequest)
	}))
	targetURL := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	src := fmt.Sprintf(`
scenario "echo" {}
target {
  url         = "%s/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "500ms" }
service { capacity = 100 }
load {
  baseline = 10
  warmup   = "1s"
  observe  = "2s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
}
prometheus {
  address = %q
  ingress = "sum(rate(x[5s]))"
  auth {
    username_env = "PROM_USER"
    password_env = "PROM_PASS"
  }
}`, targetURL, promURL)
	s, err := scenarios.Parse(filepath.Join(t.TempDir(), "echo.hcl"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PROM_USER": "operator", "PROM_PASS": "pa55-w0rd-42"}
	var logs strings.Builder
	_, err = Run(context.Background(), Options{Test: testOf(t, s), OutDir: t.TempDir(), StateDir: t.TempDir(),
		Logf:   func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) },
		Getenv: func(n string) string { return env[n] }, Consent: consentAll})
	if err == nil {
		t.Fatal("the run went on against a Prometheus that answers 400")
	}
	said := err.Error() + "\n" + logs.String()
	if !strings.Contains(said, "bad request from") {
		t.Fatalf("the server's answer is not quoted, so the test shows nothing: %s", said)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("operator:pa55-w0rd-42"))
	if strings.Contains(said, basic) || strings.Contains(said, "pa55-w0rd-42") {
		t.Errorf("the credentials are in what the run said:\n%s", said)
	}
}
