package scenarios

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// brakeAndTrap is base's on_trap block, before which a case adds a
// stop_when block.
const brakeAndTrap = `on_trap {
  action = "drop"
}`

// TestDiagnosticHints: a common mistake that no name is a few edits
// from gets a "Did you mean" that says what to write and why, on the
// mistake itself (issue 35): a credential where its environment
// variable's name belongs, an attribute written in the block around its
// own, a status code where retry.on names classes, another spelling of a
// protocol or of a duration's unit, and "max" for a count of retries.
func TestDiagnosticHints(t *testing.T) {
	stopWhen := func(body string) string {
		return "stop_when \"brake\" {\n  query = \"up > 1\"\n  address = \"http://127.0.0.1:9090\"\n" + body + "\n}\n" + brakeAndTrap
	}
	tests := []struct {
		name     string
		old, new string // replace old by new in base
		summary  string
		subject  string // source text of the subject range
		detail   []string
	}{
		// Credentials come from the environment.
		{"prometheus bearer_token", `ingress = "q"`, "ingress = \"q\"\nbearer_token = \"abc\"", "Unsupported argument", "bearer_token",
			[]string{`Did you mean bearer_token_env, in an auth block: auth { bearer_token_env = "PROM_TOKEN" }?`, "names the environment variable"}},
		{"prometheus password", `ingress = "q"`, "ingress = \"q\"\npassword = \"abc\"", "Unsupported argument", "password",
			[]string{"Did you mean password_env, in an auth block", "from its environment"}},
		{"auth bearer_token", `ingress = "q"`, "ingress = \"q\"\nauth {\n bearer_token = \"abc\"\n}", "Unsupported argument", "bearer_token",
			[]string{`Did you mean bearer_token_env = "PROM_TOKEN"?`}},
		{"stop_when token", brakeAndTrap, stopWhen(`token = "abc"`), "Unsupported argument", "token",
			[]string{"Did you mean bearer_token_env, in an auth block"}},
		{"target token", `allow_hosts = ["127.0.0.1", "localhost"]`, "allow_hosts = [\"127.0.0.1\", \"localhost\"]\nbearer_token = \"abc\"", "Unsupported argument", "bearer_token",
			[]string{"in a header from a sensitive variable"}},
		// Durations spelt otherwise.
		{"duration capital unit", `timeout       = "1s"`, `timeout = "2S"`, "Invalid duration", `"2S"`, []string{`Did you mean "2s"?`}},
		{"duration capital ms", `timeout       = "1s"`, `timeout = "500MS"`, "Invalid duration", `"500MS"`, []string{`Did you mean "500ms"?`}},
		{"duration words", `duration   = "10s"`, `duration = "5 minutes"`, "Invalid duration", `"5 minutes"`, []string{`Did you mean "5m"?`}},
		{"duration days", `dead_time = "30s"`, `dead_time = "1d"`, "Invalid duration", `"1d"`, []string{`Did you mean "24h"?`}},
		{"duration bare number", `duration   = "10s"`, `duration = "10"`, "Invalid duration", `"10"`, []string{`A bare number has no unit: did you mean "10s"?`}},
		// Protocols spelt as elsewhere.
		{"protocol http2", `allow_hosts = ["127.0.0.1", "localhost"]`, "allow_hosts = [\"127.0.0.1\", \"localhost\"]\nprotocol = \"http2\"", "Unknown protocol", `"http2"`,
			[]string{`Did you mean "h2"?`}},
		{"protocol HTTP/1.1", `allow_hosts = ["127.0.0.1", "localhost"]`, "allow_hosts = [\"127.0.0.1\", \"localhost\"]\nprotocol = \"HTTP/1.1\"", "Unknown protocol", `"HTTP/1.1"`,
			[]string{`Did you mean "http1"?`}},
		// Status codes and words in retry.on.
		{"on 502", `on          = ["timeout", "5xx"]`, `on = ["timeout", "502"]`, "Unknown outcome class", `"502"`,
			[]string{`Did you mean "5xx"? A 502 is in the class "5xx" (every 5xx but 503, which is "503")`}},
		{"on 401", `on          = ["timeout", "5xx"]`, `on = ["401"]`, "Unknown outcome class", `"401"`, []string{`Did you mean "auth"?`}},
		{"on 404", `on          = ["timeout", "5xx"]`, `on = ["404"]`, "Unknown outcome class", `"404"`, []string{`Did you mean "4xx"?`}},
		{"on service_unavailable", `on          = ["timeout", "5xx"]`, `on = ["service_unavailable"]`, "Unknown outcome class", `"service_unavailable"`, []string{`Did you mean "503"?`}},
		{"on max", `on          = ["timeout", "5xx"]`, `on = ["max"]`, "Unknown outcome class", `"max"`,
			[]string{"There is no such class", `on = ["timeout", "connect", "5xx", "503", "429", "4xx", "auth", "other"]`, "max_retries"}},
		// "max" and its kin for a count of retries.
		{"max_retries max", "max_retries = 2", `max_retries = "max"`, "Incorrect attribute value type", `"max"`,
			[]string{`from 0 to 100`, `"max" is not one: write the count you mean, e.g. max_retries = 3.`}},
		{"layer max_retries max", "max_retries       = 1", `max_retries = "max"`, "Incorrect attribute value type", `"max"`,
			[]string{`from 0 to 100`}},
		{"retry max", "max_retries = 2", "max_retries = 2\nmax = 3", "Unsupported argument", "max",
			[]string{"Did you mean max_retries", `backoff { kind = "exponential"  max = "10s" }`}},
		{"retry max_attempts", "max_retries = 2", "max_attempts = 3", "Unsupported argument", "max_attempts",
			[]string{"max_attempts = 3 is max_retries = 2"}},
		{"retry retry_on", `on          = ["timeout", "5xx"]`, `retry_on = ["5xx"]`, "Unsupported argument", "retry_on", []string{"Did you mean on?"}},
		{"retry timeout", "max_retries = 2", "max_retries = 2\ntimeout = \"1s\"", "Unsupported argument", "timeout",
			[]string{`Did you mean the client's timeout? It is client { timeout = "1s" }`}},
		// An attribute written in the block around its own.
		{"client max_retries", "max_in_flight = 100", "max_in_flight = 100\nmax_retries = 2", "Unsupported argument", "max_retries",
			[]string{"Did you mean retry { max_retries = … }? max_retries is an attribute of the retry block inside this one."}},
		{"prometheus bearer_token_env", `ingress = "q"`, "ingress = \"q\"\nbearer_token_env = \"T\"", "Unsupported argument", "bearer_token_env",
			[]string{"Did you mean auth { bearer_token_env = … }?"}},
		{"target ca_file", `allow_hosts = ["127.0.0.1", "localhost"]`, "allow_hosts = [\"127.0.0.1\", \"localhost\"]\nca_file = \"ca.pem\"", "Unsupported argument", "ca_file",
			[]string{"Did you mean tls { ca_file = … }?"}},
		{"client token_bucket", "max_in_flight = 100", "max_in_flight = 100\ntoken_bucket {\n}", "Unsupported block type", "token_bucket",
			[]string{"Did you mean retry { token_bucket { … } }? token_bucket is a block of the retry block inside this one."}},
		{"top-level timeout", `scenario "v" {}`, "scenario \"v\" {}\nbaseline = 50", "Unsupported argument", "baseline",
			[]string{"Did you mean gate { baseline = … } or load { baseline = … }? baseline is an attribute of those blocks."}},
		{"top-level url", `scenario "v" {}`, "scenario \"v\" {}\nurl = \"http://127.0.0.1/\"", "Unsupported argument", "url",
			[]string{"Did you mean target { url = … }? url is an attribute of the target block."}},
		{"variable type", `scenario "v" {}`, "variable \"port\" {\n  type = number\n  default = 8080\n}\nscenario \"v\" {}", "Unsupported argument", "type",
			[]string{"A variable's type is its default's"}},
		// hcl's own suggestion stands alone.
		{"hcl's own", `ingress = "q"`, "ingress = \"q\"\nserverd = \"q\"", "Unsupported argument", "serverd", []string{`Did you mean "served"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.old) {
				t.Fatalf("base has no %q", tt.old)
			}
			src := strings.Replace(base, tt.old, tt.new, 1)
			_, err := Parse("h.hcl", []byte(src), nil)
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
			if subject := string(d.Subject.SliceBytes([]byte(src))); subject != tt.subject {
				t.Errorf("subject = %q, want %q", subject, tt.subject)
			}
			for _, want := range tt.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail = %q, want it to contain %q", d.Detail, want)
				}
			}
			if n := strings.Count(strings.ToLower(d.Detail), "did you mean"); n > 1 {
				t.Errorf("detail = %q: %d suggestions, want one at most", d.Detail, n)
			}
		})
	}
}

// TestCredentialOutOfPlaceMasked: a token written as bearer_token (where
// its environment variable's name belongs) is not shown in the source
// line the diagnostic renders, which a CI log keeps.
func TestCredentialOutOfPlaceMasked(t *testing.T) {
	src := strings.Replace(base, `ingress = "q"`, "ingress = \"q\"\nbearer_token = \"s3cr3t-t0ken\"", 1)
	_, err := Parse("h.hcl", []byte(src), nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	var buf bytes.Buffer
	if err := e.Render(&buf, 100, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "s3cr3t-t0ken") {
		t.Errorf("the token shows:\n%s", out)
	}
	if !strings.Contains(out, "bearer_token = ") || !strings.Contains(out, "bearer_token_env") {
		t.Errorf("the diagnostic lost its line or its hint:\n%s", out)
	}
}

// TestDurationHint: what a value that is not a Go duration was probably
// meant as, and nothing when nothing parses.
func TestDurationHint(t *testing.T) {
	for _, tc := range []struct{ given, want string }{
		{"2S", `"2s"`},
		{"1H30M", `"1h30m"`},
		{"2 s", `"2s"`},
		{"250 msec", `"250ms"`},
		{"3 mins", `"3m"`},
		{"1.5hours", `"1.5h"`},
		{"2d", `"48h"`},
		{"10", `"10s"`},
		{"", ""},
		{"fast", ""},
		{"2x", ""},
		{"s2", ""},
		{"-", ""},
	} {
		got := durationHint(tc.given)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("durationHint(%q) = %q, want it to name %s", tc.given, got, tc.want)
		}
	}
}
