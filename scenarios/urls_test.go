package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestCredentialsNotEchoed: a URL with credentials is refused, and the
// password appears nowhere in what the error renders: not in a detail,
// not in a source line, not in a "with var.NAME as" line.
func TestCredentialsNotEchoed(t *testing.T) {
	const pw = "hunter2"
	tests := []struct {
		name, old, new string
	}{
		{"target", `url         = "http://127.0.0.1:8080/work"`, `url = "http://admin:hunter2@127.0.0.1:8080/work"`},
		// A URL that does not parse either: its user info is still found.
		{"target unparsable", `url         = "http://127.0.0.1:8080/work"`, `url = "http://admin:hunter2@[::1/work"`},
		// A URL without scheme.
		{"target no scheme", `url         = "http://127.0.0.1:8080/work"`, `url = "admin:hunter2@127.0.0.1:8080/work"`},
		{"prometheus", `address = "embedded"`, `address = "https://admin:hunter2@prom:9090"`},
		{"scrape", `scrape  = ["http://127.0.0.1:8080/metrics"]`, `scrape = ["http://admin:hunter2@127.0.0.1:8080/metrics"]`},
		// From a (not sensitive) variable: hcl would show its value.
		{"variable", `address = "embedded"`, `address = var.prom`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "variable \"prom\" { default = \"https://admin:hunter2@prom:9090\" }\n" + strings.Replace(base, tt.old, tt.new, 1)
			_, err := Parse("c.hcl", []byte(src), nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			var b strings.Builder
			b.WriteString(e.Error() + "\n")
			if err := e.Render(&b, 0, false); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "Credentials in URL") {
				t.Errorf("no Credentials in URL:\n%s", out)
			}
			if strings.Contains(out, pw) {
				t.Errorf("the password is shown:\n%s", out)
			}
		})
	}
}

// TestUserinfo finds the user info of URLs as written.
func TestUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@host/x":        "u:p@",
		"https://u@host":            "u@",
		"https://host/a@b":          "",
		"https://host?x=a@b":        "",
		"u:p@host:9090":             "u:p@",
		"//u:p@host":                "u:p@",
		"https://a@b@host/":         "a@b@",
		"http://127.0.0.1:8080/x":   "",
		"https://user:p%40ss@h:1/x": "user:p%40ss@",
	} {
		eq(t, in, userinfo(in), want)
	}
	eq(t, "strip", stripUserinfo("https://u:p@host/x"), "https://host/x")
}
