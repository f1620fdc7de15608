package scenarios

import (
	"strings"
	"testing"
)

// TestOKStatus: ok_status resolves codes and classes into sorted codes
// without repeats; anything else is an error on the element.
func TestOKStatus(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    []int
		summary string // expected error; "" for none
		subject string // its source text
	}{
		// Codes, sorted, repeats dropped.
		{"codes", `[204, 200, 204]`, []int{200, 204}, "", ""},
		// A class is its hundred codes; a code inside it adds nothing.
		{"class", `["2xx", 201]`, seq(200, 299), "", ""},
		// Classes in any case, and a code written as a string.
		{"strings", `["3XX", "200"]`, append([]int{200}, seq(300, 399)...), "", ""},
		// Out of range.
		{"600", `[200, 600]`, nil, "Invalid status", "600"},
		// Not a whole number.
		{"fraction", `[200.5]`, nil, "Invalid status", "200.5"},
		// No such class.
		{"6xx", `["6xx"]`, nil, "Invalid status", `"6xx"`},
		// Not a status at all.
		{"word", `["ok"]`, nil, "Invalid status", `"ok"`},
		// Empty: no response would count.
		{"empty", `[]`, nil, "Empty ok_status", "[]"},
		// Not a list.
		{"scalar", `200`, nil, "Incorrect attribute value type", "200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(minimal, `allow_hosts = ["127.0.0.1"]`, "allow_hosts = [\"127.0.0.1\"]\n  ok_status = "+tt.value, 1) +
				"service { capacity = 100 }\n"
			s, err := Parse("o.hcl", []byte(src), nil)
			if tt.summary == "" {
				if err != nil {
					t.Fatal(err)
				}
				eq(t, "ok_status", s.Target.OKStatus, tt.want)
				return
			}
			d := onlyError(t, err)
			eq(t, "summary", d.Summary, tt.summary)
			eq(t, "subject", string(d.Subject.SliceBytes([]byte(src))), tt.subject)
		})
	}
}

// TestOKStatusServerErrors: counting a 5xx as success is allowed, with a
// warning: the run cannot see the service fail with it.
func TestOKStatusServerErrors(t *testing.T) {
	src := strings.Replace(minimal, `allow_hosts = ["127.0.0.1"]`, "allow_hosts = [\"127.0.0.1\"]\n  ok_status = [\"2xx\", 503]", 1) +
		"service { capacity = 100 }\n"
	s, err := Parse("o.hcl", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Warnings == nil || len(s.Warnings.Diagnostics) != 1 {
		t.Fatalf("warnings = %v, want one", s.Warnings)
	}
	eq(t, "summary", s.Warnings.Diagnostics[0].Summary, "Server errors count as success")
}
