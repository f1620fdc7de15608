package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// base is a valid scenario with every block whose checks are tested; each
// case replaces one line of it.
const base = `scenario "v" {}
target {
  url         = "http://127.0.0.1:8080/work"
  allow_hosts = ["127.0.0.1", "localhost"]
}
client {
  timeout       = "1s"
  arrivals      = "poisson"
  max_in_flight = 100
  retry {
    max_retries = 2
    on          = ["timeout", "5xx"]
    budget      = 0.2
    backoff {
      kind   = "exponential"
      base   = "50ms"
      max    = "1s"
      jitter = "full"
    }
  }
  tracers {
    rate    = 2
    timeout = "60s"
  }
}
layer "gateway" {
  max_retries       = 1
  retry_probability = 1
}
service {
  capacity = 200
  autoscaler {
    signal    = "ingress"
    target    = 0.5
    dead_time = "30s"
  }
}
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
prometheus {
  address = "embedded"
  scrape  = ["http://127.0.0.1:8080/metrics"]
  ingress = "q"
}
recovery {
  success_ratio = 0.99
}
on_trap {
  action = "drop"
}
`

// TestSemanticChecks: each check reports one diagnostic whose subject is
// the offending value's source text (or the block header when a value is
// missing), with the expected summary and a hint in the detail.
func TestSemanticChecks(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // replace old by new in base
		summary  string
		subject  string // source text of the subject range
		detail   string // substring of the detail
	}{
		// Rates.
		{"baseline zero", "baseline = 50", "baseline = 0", "Value out of range", "0", "baseline is λ"},
		{"capacity negative", "capacity = 200", "capacity = -1", "Value out of range", "-1", "capacity is C"},
		{"pod_rate zero", "capacity = 200", "pods = 2\npod_rate = 0", "Value out of range", "0", "pod_rate is c"},
		{"tracer rate zero", "rate    = 2", "rate = 0", "Value out of range", "0", "probes per second"},
		{"on_trap rate negative", `action = "drop"`, "action = \"rate\"\nrate = -3", "Value out of range", "-3", "must not be negative"},
		// Timeouts and durations.
		{"timeout zero", `timeout       = "1s"`, `timeout = "0s"`, "Value out of range", `"0s"`, "τ_out"},
		{"spike duration zero", `duration   = "10s"`, `duration = "0s"`, "Value out of range", `"0s"`, "Δ"},
		{"bad duration", `duration   = "10s"`, `duration = "10"`, "Invalid duration", `"10"`, `did you mean "10s"?`},
		// Spike size and retries.
		{"multiplier one", "multiplier = 5", "multiplier = 1", "Value out of range", "1", "greater than 1"},
		{"max_retries negative", "max_retries = 2", "max_retries = -1", "Value out of range", "-1", "A = R + 1"},
		{"layer max_retries negative", "max_retries       = 1", "max_retries = -1", "Value out of range", "-1", "this layer's retries"},
		// Enumerations with suggestions.
		{"backoff kind", `kind   = "exponential"`, `kind = "expo"`, "Unknown backoff kind", `"expo"`, `Use "none", "constant" or "exponential".`},
		{"backoff kind close", `kind   = "exponential"`, `kind = "exponentail"`, "Unknown backoff kind", `"exponentail"`, `Did you mean "exponential"?`},
		{"jitter", `jitter = "full"`, `jitter = "ful"`, "Unknown jitter", `"ful"`, `Did you mean "full"?`},
		{"arrivals", `arrivals      = "poisson"`, `arrivals = "Poisson!"`, "Unknown arrival process", `"Poisson!"`, `Did you mean "poisson"?`},
		{"outcome class", `on          = ["timeout", "5xx"]`, `on = ["timeout", "2xx"]`, "Unknown outcome class", `"2xx"`, `"2xx" is not a known outcome class.`},
		{"signal", `signal    = "ingress"`, `signal = "ingres"`, "Unknown autoscaler signal", `"ingres"`, `Did you mean "ingress"?`},
		{"on_trap action", `action = "drop"`, `action = "restart"`, "Unknown on_trap action", `"restart"`, `Use "drop", "rate" or "command".`},
		// Fractions.
		{"budget above one", "budget      = 0.2", "budget = 1.01", "Value out of range", "1.01", "[0, 1]"},
		{"budget negative", "budget      = 0.2", "budget = -0.1", "Value out of range", "-0.1", "[0, 1]"},
		{"retry_probability zero", "retry_probability = 1", "retry_probability = 0", "Value out of range", "0", "(0, 1]"},
		{"success_ratio above one", "success_ratio = 0.99", "success_ratio = 1.5", "Value out of range", "1.5", "(0, 1]"},
		{"autoscaler target zero", "target    = 0.5", "target = 0", "Value out of range", "0", "u*"},
		// Capacity.
		{"capacity inconsistent", "capacity = 200", "capacity = 200\npods = 3\npod_rate = 50", "Inconsistent capacity", "200", "3 × 50 = 150"},
		{"capacity neither", "capacity = 200", "", "Missing service capacity", "service", "pods = N and pod_rate = c"},
		// Target.
		{"url scheme", `url         = "http://127.0.0.1:8080/work"`, `url = "127.0.0.1:8080/work"`, "Invalid target URL", `"127.0.0.1:8080/work"`, `has no scheme: the target URL must be http:// or https:// (grpc:// or grpcs:// for a gRPC call), such as "http://127.0.0.1:8080/work"`},
		{"url ftp", `url         = "http://127.0.0.1:8080/work"`, `url = "ftp://127.0.0.1/work"`, "Invalid target URL", `"ftp://127.0.0.1/work"`, `has scheme "ftp"`},
		{"url unparsable", `url         = "http://127.0.0.1:8080/work"`, `url = "http://[::1/work"`, "Invalid target URL", `"http://[::1/work"`, "is not a URL"},
		{"host not allowed", `url         = "http://127.0.0.1:8080/work"`, `url = "http://10.0.0.1:8080/work"`, "Host not allowed", `"http://10.0.0.1:8080/work"`, `"10.0.0.1" is not in allow_hosts ["127.0.0.1", "localhost"]`},
		// on_trap actions without their setting.
		{"on_trap rate missing", `action = "drop"`, `action = "rate"`, "Missing rate", "on_trap", "add rate"},
		{"on_trap command missing", `action = "drop"`, `action = "command"`, "Missing command", "on_trap", "add command"},
		// Prometheus.
		{"prometheus address", `address = "embedded"`, `address = "prometheus:9090"`, "Invalid Prometheus address", `"prometheus:9090"`, "neither"},
		// A query over the run's Prometheus' cost bounds (the audit's).
		{"prometheus query too costly", `ingress = "q"`, `ingress = "count_over_time(up[100d:1ms])"`, "Query too costly", `"count_over_time(up[100d:1ms])"`, "8.64e+09"},
		{"prometheus subquery without step", `ingress = "q"`, `ingress = "max_over_time(up[30d:])"`, "Query too costly", `"max_over_time(up[30d:])"`, "more than 1000000 evaluation steps"},
		// Hosts: the target's allow_hosts also bound the Host header and
		// the scrape targets; an entry with a port would match nothing.
		{"host header", `url         = "http://127.0.0.1:8080/work"`, "url = \"http://127.0.0.1:8080/work\"\nheaders = { Host = \"prod.example:443\" }", "Host header not allowed", "Host", `"prod.example", which is not in allow_hosts`},
		{"authority header", `url         = "http://127.0.0.1:8080/work"`, "url = \"http://127.0.0.1:8080/work\"\nheaders = { \":AUTHORITY\" = \"prod.example\" }", "Host header not allowed", `":AUTHORITY"`, "load would go to another virtual host"},
		{"scrape host", `scrape  = ["http://127.0.0.1:8080/metrics"]`, `scrape = ["http://10.0.0.7:8080/metrics"]`, "Scrape target not allowed", `"http://10.0.0.7:8080/metrics"`, `"10.0.0.7" is not in target.allow_hosts`},
		{"allow_hosts port", `allow_hosts = ["127.0.0.1", "localhost"]`, `allow_hosts = ["127.0.0.1", "localhost:8080"]`, "Invalid host", `"localhost:8080"`, "looks like host:port"},
		// Credentials in URLs.
		{"target credentials", `url         = "http://127.0.0.1:8080/work"`, `url = "http://user:pw@127.0.0.1:8080/work"`, "Credentials in URL", `"http://user:pw@127.0.0.1:8080/work"`, "sensitive variable"},
		{"prometheus credentials", `address = "embedded"`, `address = "https://user:pw@prom:9090"`, "Credentials in URL", `"https://user:pw@prom:9090"`, "auth block"},
		{"scrape credentials", `scrape  = ["http://127.0.0.1:8080/metrics"]`, `scrape = ["http://user:pw@127.0.0.1:8080/metrics"]`, "Credentials in URL", `"http://user:pw@127.0.0.1:8080/metrics"`, "user info"},
		// Bounds no real test means beyond.
		{"multiplier huge", "multiplier = 5", "multiplier = 1e300", "Value out of range", "1e300", "at most 1000"},
		{"baseline huge", "baseline = 50", "baseline = 2e6", "Value out of range", "2e6", "at most 1e6"},
		{"capacity huge", "capacity = 200", "capacity = 2e7", "Value out of range", "2e7", "at most 1e7"},
		{"pods × pod_rate huge", "capacity = 200", "pods = 1000\npod_rate = 1e6", "Value out of range", "1e6", "at most 1e7"},
		{"max_in_flight huge", "max_in_flight = 100", "max_in_flight = 2000000", "Value out of range", "2000000", "at most 1,000,000"},
		{"tracer rate huge", "rate    = 2", "rate = 500", "Value out of range", "500", "at most 100"},
		{"max_retries huge", "max_retries = 2", "max_retries = 1000", "Value out of range", "1000", "from 0 to 100"},
		{"on_trap rate huge", `action = "drop"`, "action = \"rate\"\nrate = 1e9", "Value out of range", "1e9", "at most 1e6"},
		{"duration huge", `duration   = "10s"`, `duration = "169h"`, "Value out of range", `"169h"`, "longer than 7 days (168h0m0s)"},
		{"scrape_interval short", `address = "embedded"`, "address = \"embedded\"\nscrape_interval = \"100ms\"", "Value out of range", `"100ms"`, "no shorter than 200ms"},
		// Client limits and backoff.
		{"max_in_flight zero", "max_in_flight = 100", "max_in_flight = 0", "Value out of range", "0", "at least 1"},
		// Gate.
		{"max_trap_probability one", "action = \"drop\"\n}", "action = \"drop\"\n}\ngate {\n  max_trap_probability = 1\n}", "Value out of range", "1", "strictly between 0 and 1"},
		{"max_trap_probability negative", "action = \"drop\"\n}", "action = \"drop\"\n}\ngate {\n  max_trap_probability = -0.1\n}", "Value out of range", "-0.1", "strictly between 0 and 1"},
		{"backoff max below base", `max    = "1s"`, `max = "10ms"`, "Backoff max below base", `"10ms"`, "(10ms) is shorter than its base delay (50ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.old) {
				t.Fatalf("base has no %q", tt.old)
			}
			src := strings.Replace(base, tt.old, tt.new, 1)
			_, err := Parse("v.hcl", []byte(src), nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			var errs []*hcl.Diagnostic
			for _, d := range e.Diagnostics {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("want exactly one error, got %d: %v", len(errs), errs)
			}
			d := errs[0]
			eq(t, "summary", d.Summary, tt.summary)
			subject := string(d.Subject.SliceBytes([]byte(src)))
			if subject != tt.subject && !strings.HasPrefix(subject, tt.subject+" ") {
				t.Errorf("subject = %q, want %q", subject, tt.subject)
			}
			if !strings.Contains(d.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", d.Detail, tt.detail)
			}
		})
	}
	if _, err := Parse("v.hcl", []byte(base), nil); err != nil {
		t.Fatalf("base scenario: %v", err)
	}
}

// TestWarnings: problems that do not invalidate a scenario.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name, old, new, summary string
	}{
		// Scrape targets with a remote Prometheus.
		{"scrape remote", `address = "embedded"`, `address = "http://127.0.0.1:9090"`, "Scrape targets ignored"},
		// An embedded Prometheus with nothing to scrape.
		{"nothing to scrape", `scrape  = ["http://127.0.0.1:8080/metrics"]`, "", "Nothing to scrape"},
		// No ingress query: A_fail cannot be measured.
		{"no ingress", `ingress = "q"`, "", "No ingress query"},
		// Tracers that give up with the clients.
		{"tracer timeout", `timeout = "60s"`, `timeout = "1s"`, "Tracer timeout too short"},
		// A setting the action does not use.
		{"rate ignored", `action = "drop"`, "action = \"drop\"\nrate = 5", "Setting ignored"},
		// Retries configured but no outcome retried.
		{"nothing retried", `on          = ["timeout", "5xx"]`, "on = []", "Nothing is retried"},
		// A gate only repeated trials judge.
		{"max_trap_probability", "action = \"drop\"\n}", "action = \"drop\"\n}\ngate {\n  max_trap_probability = 0.05\n}", "Judged over repeated trials"},
		// Campaign trials too few for the sequential rule ever to call a
		// cell below 0.05 (42 clean trials) or above 0.95 (42 traps).
		{"trials below 0.05", "action = \"drop\"\n}", "action = \"drop\"\n}\ncampaign {\n  baselines = [0.5]\n  from = 1.5\n  to = 4\n  trials = 5\n  trap_probability = 0.05\n}", "Too few trials to decide"},
		{"trials above 0.95", "action = \"drop\"\n}", "action = \"drop\"\n}\ncampaign {\n  baselines = [0.5]\n  from = 1.5\n  to = 4\n  trials = 41\n  trap_probability = 0.95\n}", "Too few trials to decide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("w.hcl", []byte(strings.Replace(base, tt.old, tt.new, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Warnings == nil || len(s.Warnings.Diagnostics) != 1 {
				t.Fatalf("warnings = %v, want one", s.Warnings)
			}
			d := s.Warnings.Diagnostics[0]
			eq(t, "severity", d.Severity, hcl.DiagWarning)
			eq(t, "summary", d.Summary, tt.summary)
		})
	}
	// Enough trials, or one (a run decides the cell): no warning.
	for _, trials := range []string{"42", "1"} {
		src := strings.Replace(base, "action = \"drop\"\n}", "action = \"drop\"\n}\ncampaign {\n  baselines = [0.5]\n  from = 1.5\n  to = 4\n  trials = "+trials+"\n  trap_probability = 0.05\n}", 1)
		if s, err := Parse("w.hcl", []byte(src), nil); err != nil || s.Warnings != nil {
			t.Errorf("trials = %s at 0.05: %v, warnings %v", trials, err, s.Warnings)
		}
	}
}

// A host refused with a per-request value in it reads as the scenario
// spells it (${request.id}), never as the raw marker characters that hold
// its place (issue 32, finding 12).
func TestNotAllowedHostReadable(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"url host", `url         = "http://127.0.0.1:8080/work"`, `url = "http://${request.id}.example/x"`, `"${request.id}.example" is made of per-request values`},
		{"url host port", `url         = "http://127.0.0.1:8080/work"`, `url = "http://h${random.uuid}:8080/"`, `"h${random.uuid}"`},
		{"host header", `url         = "http://127.0.0.1:8080/work"`, "url = \"http://127.0.0.1:8080/work\"\nheaders = { Host = \"x${request.seq}.example\" }", `"x${request.seq}.example"`},
		{"no scheme", `url         = "http://127.0.0.1:8080/work"`, `url = "${request.id}/x"`, `"${request.id}/x" has no scheme`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("v.hcl", []byte(strings.Replace(base, tc.old, tc.new, 1)), nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			var all strings.Builder
			for _, d := range e.Diagnostics {
				all.WriteString(d.Summary + ": " + d.Detail + "\n")
			}
			if !strings.Contains(all.String(), tc.want) {
				t.Errorf("diagnostics do not say %q:\n%s", tc.want, all.String())
			}
			if strings.ContainsAny(all.String(), vocab.MarkerOpen+vocab.MarkerClose) || strings.Contains(all.String(), `\ue00`) {
				t.Errorf("diagnostics hold raw marker characters:\n%q", all.String())
			}
		})
	}
	// The runner's own check (CheckSends) words its refusal the same way.
	s, err := Parse("v.hcl", []byte(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Target.URL = "http://" + vocab.PerRequestID.Marker() + ".example/x"
	err = CheckSends(s)
	if err == nil || !strings.Contains(err.Error(), `"${request.id}.example"`) {
		t.Errorf("CheckSends = %v, want the host as ${request.id}.example", err)
	}
}
