package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// withVars is minimal with variables declared and used in it.
const withVars = `
variable "baseline" { default = 10 }
variable "retry_after" { default = true }
variable "method" { default = "GET" }
variable "on" { default = ["timeout"] }
variable "headers" { default = { "X-A" = "1" } }
variable "pods" {}
scenario "v" {}
target {
  url         = "http://127.0.0.1:8080/"
  method      = var.method
  headers     = var.headers
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout = "1s"
  retry {
    on          = var.on
    retry_after = var.retry_after
  }
}
service {
  pods     = var.pods
  pod_rate = 25
}
load {
  baseline = var.baseline
  spike {
    multiplier = 2
    duration   = "5s"
  }
}
`

// TestVariables: defaults, overrides converted to the default's type, and
// a variable without default that takes its override as a string.
func TestVariables(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want func(t *testing.T, s *Scenario)
	}{
		// Only the variable without default is given: the others keep
		// their defaults; "4" becomes the number HCL needs for pods.
		{"defaults", map[string]string{"pods": "4"}, func(t *testing.T, s *Scenario) {
			eq(t, "baseline", s.Load.Baseline, 10.0)
			eq(t, "retry_after", s.Client.Retry.RetryAfter, true)
			eq(t, "method", s.Target.Method, "GET")
			eq(t, "on", s.Client.Retry.On, retry.NewOutcomeSet(vocab.OutcomeTimeout))
			eq(t, "headers", s.Target.Headers, map[string]string{"X-A": "1"})
			eq(t, "capacity", s.Service.Capacity, 100.0)
			eq(t, "variables", s.Variables, map[string]string{
				"baseline": "10", "retry_after": "true", "method": `"GET"`, "on": `["timeout"]`,
				"headers": `{ "X-A" = "1" }`, "pods": `"4"`,
			})
		}},
		// Every override, each converted to the type of its default.
		{"overrides", map[string]string{
			"pods": "2", "baseline": " 12.5 ", "retry_after": "false", "method": "POST",
			"on": `["timeout", "503"]`, "headers": `{ "X-B" = "2" }`,
		}, func(t *testing.T, s *Scenario) {
			eq(t, "baseline", s.Load.Baseline, 12.5)
			eq(t, "retry_after", s.Client.Retry.RetryAfter, false)
			eq(t, "method", s.Target.Method, "POST")
			eq(t, "on", s.Client.Retry.On, retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome503))
			eq(t, "headers", s.Target.Headers, map[string]string{"X-B": "2"})
			eq(t, "capacity", s.Service.Capacity, 50.0)
			eq(t, "variables", s.Variables["baseline"], "12.5")
			eq(t, "variables", s.Variables["on"], `["timeout", "503"]`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("v.hcl", []byte(withVars), tt.vars)
			if err != nil {
				t.Fatal(err)
			}
			tt.want(t, s)
		})
	}
}

// TestVariableErrors: each bad use of variables is an *Error whose
// diagnostic says what is wrong and, for a misspelt name, suggests one.
func TestVariableErrors(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		summary string
		detail  string // a substring of the detail
	}{
		// No value at all for a variable without default.
		{"missing value", nil, "Missing value for variable", `Variable "pods" has no default`},
		// An override for a name the scenario does not declare.
		{"undeclared override", map[string]string{"pods": "1", "baselin": "5"}, "Undeclared variable", `Did you mean "baseline"?`},
		// A number default and a value that is not a number.
		{"not a number", map[string]string{"pods": "1", "baseline": "ten"}, "Invalid value for variable", "must be a number too"},
		// A bool default and a value that is not a bool.
		{"not a bool", map[string]string{"pods": "1", "retry_after": "yes"}, "Invalid value for variable", "must be a bool too"},
		// A list default and a value that is not HCL.
		{"bad list syntax", map[string]string{"pods": "1", "on": `["timeout"`}, "Unterminated tuple constructor expression", ""},
		// A list default and a value that is a string.
		{"not a list", map[string]string{"pods": "1", "on": `"timeout"`}, "Invalid value for variable", "must be one too"},
		// A map default and a list value.
		{"not a map", map[string]string{"pods": "1", "headers": `["a"]`}, "Invalid value for variable", "is a map"},
		// A valid override that fails a semantic check downstream.
		{"semantic", map[string]string{"pods": "0"}, "Value out of range", "pods is N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("v.hcl", []byte(withVars), tt.vars)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			checkDiagnostics(t, e)
			for _, d := range e.Diagnostics {
				if d.Summary == tt.summary && strings.Contains(d.Detail, tt.detail) {
					return
				}
			}
			var b strings.Builder
			_ = e.Render(&b, 0, false)
			t.Errorf("no %q with %q in:\n%s", tt.summary, tt.detail, b.String())
		})
	}
}

// TestUndeclaredReference: var.NAME of an undeclared variable suggests the
// closest declared name, and the attribute is not reported a second time.
func TestUndeclaredReference(t *testing.T) {
	src := strings.Replace(withVars, "baseline = var.baseline", "baseline = var.baselin", 1)
	_, err := Parse("v.hcl", []byte(src), map[string]string{"pods": "1"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if len(e.Diagnostics) != 1 {
		t.Fatalf("got %d diagnostics, want 1: %v", len(e.Diagnostics), e.Diagnostics)
	}
	d := e.Diagnostics[0]
	eq(t, "summary", d.Summary, "Undeclared variable")
	eq(t, "detail", d.Detail, `There is no variable "baselin". Did you mean "baseline"?`)
	eq(t, "line", d.Subject.Start.Line, 27)
}

// TestParseVar splits --var flag values.
func TestParseVar(t *testing.T) {
	tests := []struct {
		in          string
		name, value string
		ok          bool
	}{
		{"baseline=50", "baseline", "50", true},           // plain
		{"expr=a=b", "expr", "a=b", true},                 // only the first "=" splits
		{"empty=", "empty", "", true},                     // empty value
		{`hosts=["a", "b"]`, "hosts", `["a", "b"]`, true}, // HCL value kept raw
		{" spaced =x", "spaced", "x", true},               // name trimmed
		{"with-dash=1", "with-dash", "1", true},           // HCL identifiers allow dashes
		{"novalue", "", "", false},                        // no "="
		{"=5", "", "", false},                             // no name
		{"1abc=5", "", "", false},                         // not an identifier
		{"a.b=5", "", "", false},                          // not an identifier
	}
	for _, tt := range tests {
		name, value, err := ParseVar(tt.in)
		if (err == nil) != tt.ok || name != tt.name || value != tt.value {
			t.Errorf("ParseVar(%q) = %q, %q, %v; want %q, %q, ok=%v", tt.in, name, value, err, tt.name, tt.value, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrVarSyntax) {
			t.Errorf("ParseVar(%q) error %v does not wrap ErrVarSyntax", tt.in, err)
		}
	}
}
