package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// withSecret is minimal with a sensitive token sent in a header.
const withSecret = `
variable "token" {
  default   = "dflt-t0ken-value"
  sensitive = true
}
scenario "s" {}
target {
  url         = "http://127.0.0.1:8080/"
  headers     = { Authorization = "Bearer ${var.token}" }
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = 100 }
load {
  baseline = 10
  spike {
    multiplier = 2
    duration   = "5s"
  }
}
`

// TestSensitiveValues: a sensitive variable's value reaches the scenario,
// reads SensitiveValue in Variables, and is listed in Secrets as text and
// as an HCL literal, for the runner to redact.
func TestSensitiveValues(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		header  string
		secrets []string
	}{
		// The default.
		{"default", nil, "Bearer dflt-t0ken-value", []string{`"dflt-t0ken-value"`, "dflt-t0ken-value"}},
		// An override, also with surrounding spaces.
		{"override", map[string]string{"token": " over-t0ken "}, "Bearer  over-t0ken ", []string{`" over-t0ken "`, " over-t0ken ", "over-t0ken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("s.hcl", []byte(withSecret), tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "header", s.Target.Headers["Authorization"], tt.header)
			eq(t, "variables", s.Variables, map[string]string{"token": SensitiveValue})
			eq(t, "secrets", s.Secrets, tt.secrets)
		})
	}
}

// TestSensitiveNotShown: no diagnostic text or snippet shows a sensitive
// value: not a bad override's, not one a semantic check or hcl quotes,
// not the default in the file, not in warnings.
func TestSensitiveNotShown(t *testing.T) {
	tests := []struct {
		name    string
		decl    string // the sensitive variable's block
		old     string // replaced in withSecret ...
		new     string // ... by this
		vars    map[string]string
		secret  string // must not appear
		summary string // a diagnostic that must be there
		warning bool   // the diagnostic is a warning
	}{
		// An override that is not of the default's type: the message
		// names the variable, not the value; the pseudo-file is hidden.
		{"bad number", `variable "n" {
  default   = 5
  sensitive = true
}`, "", "", map[string]string{"n": "n0t-a-numb3r"}, "n0t-a-numb3r", "Invalid value for variable", false},
		// An override that is not valid HCL for a list: hcl's messages
		// may quote it.
		{"bad list", `variable "l" {
  default   = ["a"]
  sensitive = true
}`, "", "", map[string]string{"l": `["l1st-s3cret", "`}, "l1st-s3cret", "Unterminated template string", false},
		// A value that fails a semantic check: the check quotes it.
		{"bad duration", `variable "d" {
  default   = "1s"
  sensitive = true
}`, `client { timeout = "1s" }`, `client { timeout = var.d }`, map[string]string{"d": "dur4tion-s3cret"}, "dur4tion-s3cret", "Invalid duration", false},
		// A value computed from the secret: "Got 0." would show it, and
		// hcl's "with var.b as 7777" too.
		{"derived", `variable "b" {
  default   = 1
  sensitive = true
}`, "baseline = 10", "baseline = 7000 - var.b", map[string]string{"b": "7777"}, "777", "Value out of range", false},
		// A default hcl reports on: its source line is masked.
		{"default", `variable "x" {
  sensitive = true
  default   = "dflt-s3cret-${var.token}"
}`, "", "", nil, "dflt-s3cret", "Variables not allowed", false},
		// A warning that quotes an address taken from the secret.
		{"warning", `variable "p" {
  default   = "http://127.0.0.1:9090/pr0m-s3cret"
  sensitive = true
}`, "service { capacity = 100 }", "service { capacity = 100 }\nprometheus {\n  address = var.p\n  scrape = [\"http://127.0.0.1:8080/metrics\"]\n  ingress = \"q\"\n}", nil, "pr0m-s3cret", "Scrape targets ignored", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.decl + "\n" + strings.Replace(withSecret, tt.old, tt.new, 1)
			s, err := Parse("s.hcl", []byte(src), tt.vars)
			var e *Error
			if tt.warning {
				if err != nil {
					t.Fatal(err)
				}
				e = s.Warnings
			} else if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			var b strings.Builder
			b.WriteString(e.Error() + "\n")
			if err := e.Render(&b, 0, false); err != nil {
				t.Fatal(err)
			}
			for _, d := range e.Diagnostics {
				b.WriteString(d.Summary + "\n" + d.Detail + "\n")
			}
			out := b.String()
			if strings.Contains(out, tt.secret) {
				t.Errorf("the secret %q is shown:\n%s", tt.secret, out)
			}
			if !strings.Contains(out, tt.summary) {
				t.Errorf("no %q in:\n%s", tt.summary, out)
			}
			if strings.Contains(out, "with var.") && !strings.Contains(out, "with var.token") {
				// Only non-sensitive variables may be shown.
				t.Errorf("a variable's value is shown:\n%s", out)
			}
		})
	}
}

// TestSensitiveOnlySecrets: redaction hides the values computed from a
// sensitive variable, not the rest of what they are part of: the other
// headers of a map whose one value holds the token stay readable.
func TestSensitiveOnlySecrets(t *testing.T) {
	src := strings.Replace(withSecret, `headers     = { Authorization = "Bearer ${var.token}" }`,
		"headers     = { Authorization = \"Bearer ${var.token}\", \"X-Test\" = \"trigger\" }\n  method = \"trigger now\"", 1)
	_, err := Parse("s.hcl", []byte(src), nil)
	d := onlyError(t, err)
	eq(t, "summary", d.Summary, "Invalid HTTP method")
	eq(t, "detail", d.Detail, `"trigger now" is not an HTTP method, such as "GET" or "POST".`)
}

// A webhook built from variables: each one is a secret, hidden from
// Variables (result.json's scenario echo showed a webhook's path) and
// redacted from text.
func TestWebhookPartsAreSecret(t *testing.T) {
	src := minimal + `service { capacity = 100 }
variable "hook_host" { default = "hooks.example.com" }
variable "hook_path" { default = "T000/B000/XXXXsecretpath" }
variable "other" { default = "kept" }
notify { webhook = "https://${var.hook_host}/services/${var.hook_path}" }
`
	s, err := Parse("s.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "variables", s.Variables, map[string]string{"hook_host": SensitiveValue, "hook_path": SensitiveValue, "other": `"kept"`})
	if !contains(s.Secrets, "T000/B000/XXXXsecretpath") || !contains(s.Secrets, "hooks.example.com") {
		t.Errorf("secrets = %q; want the webhook's parts", s.Secrets)
	}
}

// The copy of the scenario a run keeps has every sensitive variable's
// default replaced, also when --var gave another value (the default was
// copied verbatim).
func TestKeptSourceHidesSensitiveDefaults(t *testing.T) {
	src := withSecret + `variable "n" {
  default   = 12345
  sensitive = true
}
`
	for _, vars := range []map[string]string{nil, {"token": "other-value"}} {
		s, err := Parse("s.hcl", []byte(src), vars)
		if err != nil {
			t.Fatal(err)
		}
		kept := string(s.KeptSource)
		if strings.Contains(kept, "dflt-t0ken-value") || strings.Contains(kept, "12345") {
			t.Errorf("vars %v: the kept copy holds a sensitive default:\n%s", vars, kept)
		}
		if !strings.Contains(kept, `default   = "(sensitive)"`) || !strings.Contains(kept, "default   = null") {
			t.Errorf("vars %v: the kept copy does not say where the defaults were:\n%s", vars, kept)
		}
		// The copy still reads, given the values it lacks.
		if _, err := Parse("kept.hcl", s.KeptSource, map[string]string{"n": "1"}); err != nil {
			t.Errorf("the kept copy does not parse: %v", err)
		}
	}
}
