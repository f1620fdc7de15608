package scenarios

import (
	"strings"
	"testing"
)

// TestNormalizeHost: the form allow_hosts compares.
func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{
		"localhost":       "localhost",
		"LOCALHOST.":      "localhost",
		"Staging.Example": "staging.example",
		"[::1]":           "::1",
		"::1":             "::1",
		"[FE80::1]":       "fe80::1",
		"127.0.0.1":       "127.0.0.1",
		"a..":             "a.", // one trailing dot only
		"":                "",
	} {
		eq(t, in, NormalizeHost(in), want)
	}
}

// TestHostAllowed: allow_hosts matches hosts in any of their spellings.
func TestHostAllowed(t *testing.T) {
	allow := []string{"[::1]", "LOCALHOST.", "staging.example"}
	for host, want := range map[string]bool{
		"::1":              true,
		"[::1]":            true,
		"localhost":        true,
		"localhost.":       true,
		"Staging.Example.": true,
		"127.0.0.1":        false,
		"example":          false,
		"":                 false,
	} {
		eq(t, host, HostAllowed(allow, host), want)
	}
	eq(t, "empty allow", HostAllowed(nil, "localhost"), false)
}

// TestAllowHostsSpellings: the decoder accepts a URL host in any spelling
// of an allow_hosts entry, and stores the entries normalised, the form
// the runner compares (today with strings.EqualFold).
func TestAllowHostsSpellings(t *testing.T) {
	tests := []struct {
		url   string
		allow string
		want  []string
	}{
		{"http://[::1]:8080/", `["[::1]"]`, []string{"::1"}},
		{"http://[::1]:8080/", `["::1"]`, []string{"::1"}},
		{"http://localhost:8080/", `["LOCALHOST."]`, []string{"localhost"}},
		{"http://LocalHost.:8080/", `["localhost"]`, []string{"localhost"}},
	}
	for _, tt := range tests {
		t.Run(tt.url+" "+tt.allow, func(t *testing.T) {
			src := strings.Replace(strings.Replace(minimal, `"http://127.0.0.1:8080/"`, `"`+tt.url+`"`, 1),
				`["127.0.0.1"]`, tt.allow, 1) + "service { capacity = 100 }\n"
			s, err := Parse("h.hcl", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "allow_hosts", s.Target.AllowHosts, tt.want)
		})
	}
}

// TestHeaderHost: the host of a Host header, its port stripped.
func TestHeaderHost(t *testing.T) {
	for in, want := range map[string]string{
		"api.example:8443": "api.example",
		"api.example":      "api.example",
		"[::1]:80":         "[::1]",
		"[::1]":            "[::1]",
		"::1":              "::1",
		" spaced ":         "spaced",
	} {
		eq(t, in, HeaderHost(in), want)
	}
}
