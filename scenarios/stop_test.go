package scenarios

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// TestStopWhen: stop_when blocks decode in declared order with their
// defaults, the two uses of the documentation among them.
func TestStopWhen(t *testing.T) {
	src := minimal + `service { capacity = 100 }
stop_when "checkout-burn" {
  query   = "slo:burn_rate:ratio_1h{service=\"checkout\",env=\"staging-eu\"} > 10"
  address = "https://prometheus.staging-eu.internal"
  auth {
    username_env = "PROM_USER"
    password_env = "PROM_PASSWORD"
  }
}
stop_when "production-alerts" {
  query = "ALERTS{alertstate=\"firing\",env=\"production\"}"
}
stop_when "slow" {
  query   = "up == 0"
  timeout = "30s"
}
`
	s, err := Parse("s.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Warnings != nil {
		t.Errorf("warnings: %v", s.Warnings)
	}
	eq(t, "stop_when", s.StopWhen, []StopCondition{
		{Name: "checkout-burn", Query: `slo:burn_rate:ratio_1h{service="checkout",env="staging-eu"} > 10`,
			Address: "https://prometheus.staging-eu.internal", Timeout: 2 * time.Second,
			Auth: &PrometheusAuth{UsernameEnv: "PROM_USER", PasswordEnv: "PROM_PASSWORD"}},
		{Name: "production-alerts", Query: `ALERTS{alertstate="firing",env="production"}`, Timeout: 2 * time.Second},
		{Name: "slow", Query: "up == 0", Timeout: 30 * time.Second},
	})
}

// TestStopWhenErrors: each broken stop_when is one diagnostic at the
// offending source, with a detail that says what to do.
func TestStopWhenErrors(t *testing.T) {
	tests := []struct {
		name    string
		block   string // the stop_when block(s)
		summary string
		subject string // source text of the subject
		detail  string // substring of the detail
	}{
		// The query is required.
		{"no query", `stop_when "x" {}`, "Missing required argument", `stop_when "x"`, "needs query"},
		// An empty query fires never.
		{"empty query", `stop_when "x" { query = " " }`, "Empty query", `" "`, "any sample of which"},
		// A query Prometheus would refuse.
		{"bad promql", `stop_when "x" { query = "rate(x[5m]" }`, "Invalid PromQL query", `"rate(x[5m]"`, "does not parse"},
		// A scalar fires always or never.
		{"scalar", `stop_when "x" { query = "1 > bool 0" }`, "Query is not a vector", `"1 > bool 0"`, "returns a scalar"},
		// A range vector is no brake either.
		{"matrix", `stop_when "x" { query = "up[5m]" }`, "Query is not a vector", `"up[5m]"`, "returns a range vector"},
		// Only http(s) base URLs.
		{"address", `stop_when "x" {
  query   = "up == 0"
  address = "prometheus:9090"
}`, "Invalid stop_when address", `"prometheus:9090"`, "is neither"},
		// No credentials in the address; the password is not repeated.
		{"credentials", `stop_when "x" {
  query   = "up == 0"
  address = "https://admin:hunter2@prom:9090"
}`, "Credentials in URL", `"https://**************prom:9090"`, "auth block"},
		// Timeout bounds.
		{"timeout short", `stop_when "x" {
  query   = "up == 0"
  timeout = "10ms"
}`, "Value out of range", `"10ms"`, "from 100ms to 30s"},
		{"timeout long", `stop_when "x" {
  query   = "up == 0"
  timeout = "1m"
}`, "Value out of range", `"1m"`, "from 100ms to 30s"},
		// Names are unique ...
		{"duplicate", `stop_when "x" { query = "up == 0" }
stop_when "x" { query = "up == 1" }`, "Duplicate stop_when", `"x"`, "already declared at s.hcl:16:1"},
		// ... and safe as file names.
		{"name", `stop_when "../x" { query = "up == 0" }`, "Invalid stop_when name", `"../x"`, "letters, digits, dots, dashes and underscores"},
		// A query too long to parse quickly.
		{"long query", `stop_when "x" { query = "` + strings.Repeat("-", MaxQueryBytes) + `up" }`, "Query too long", `"` + strings.Repeat("-", MaxQueryBytes) + `up"`, "at most 2048"},
		// A query over the run's Prometheus' cost bounds.
		{"costly query", `stop_when "x" { query = "count_over_time(up[100d:1ms]) > 0" }`, "Query too costly", `"count_over_time(up[100d:1ms]) > 0"`, "8.64e+09"},
		// Too many brakes.
		{"too many", manyStops(MaxStopWhen + 1), "Too many stop_when blocks", `stop_when "s16"`, "at most 16"},
		// The auth block is checked as the prometheus block's.
		{"auth", `stop_when "x" {
  query   = "up == 0"
  address = "https://prom:9090"
  auth {
    bearer_token_env = "T"
    username_env     = "U"
  }
}`, "Conflicting credentials", `"T"`, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := minimal + "service { capacity = 100 }\n" + tt.block + "\n"
			_, err := Parse("s.hcl", []byte(src), nil)
			d := onlyError(t, err)
			eq(t, "summary", d.Summary, tt.summary)
			if got := string(d.Subject.SliceBytes(maskedSource(t, err, src))); got != tt.subject {
				t.Errorf("subject = %q, want %q", got, tt.subject)
			}
			if !strings.Contains(d.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", d.Detail, tt.detail)
			}
		})
	}
}

// TestStopWhenIgnored: auth and tls on a stop_when without address are
// ignored (the prometheus block's are used), which is a warning.
func TestStopWhenIgnored(t *testing.T) {
	src := minimal + `service { capacity = 100 }
stop_when "x" {
  query = "up == 0"
  auth { bearer_token_env = "T" }
  tls { ca_file = "ca.pem" }
}
`
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ca.pem"), "a stand-in")
	s, err := Parse(filepath.Join(dir, "s.hcl"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Warnings == nil || len(s.Warnings.Diagnostics) != 2 {
		t.Fatalf("warnings = %v, want two", s.Warnings)
	}
	for _, d := range s.Warnings.Diagnostics {
		eq(t, "summary", d.Summary, "Setting ignored")
	}
}

// onlyError returns the one error diagnostic of err, failing otherwise.
func onlyError(t *testing.T, err error) *hcl.Diagnostic {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	checkDiagnostics(t, e)
	var errs []*hcl.Diagnostic
	for _, d := range e.Diagnostics {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		var b strings.Builder
		_ = e.Render(&b, 0, false)
		t.Fatalf("want exactly one error, got %d:\n%s", len(errs), b.String())
	}
	return errs[0]
}

// maskedSource returns the source of the scenario file as err renders
// it (secrets masked), checking that it has the length of src.
func maskedSource(t *testing.T, err error, src string) []byte {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	for name, f := range e.Files {
		if !isVarFile(name) {
			if len(f.Bytes) != len(src) {
				t.Fatalf("rendered source has %d bytes, want %d", len(f.Bytes), len(src))
			}
			return f.Bytes
		}
	}
	t.Fatal("no scenario file in the error")
	return nil
}

// manyStops returns n stop_when blocks named s0, s1, ...
func manyStops(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "stop_when \"s%d\" { query = \"up == 0\" }\n", i)
	}
	return b.String()
}
