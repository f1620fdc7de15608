package scenarios

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Credentials never belong in a URL of a scenario: URLs are printed in
// logs, reports and diagnostics. A URL with user info is refused, and no
// message repeats it with the user info in.

// userinfo returns the user info of a URL as written ("user:pw" of
// "https://user:pw@host/x"), or "". It reads the text, so it finds the
// user info of a URL that does not parse too.
func userinfo(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + 3
	} else if strings.HasPrefix(raw, "//") {
		start = 2
	}
	authority := raw[start:]
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		return authority[:i+1]
	}
	return ""
}

// stripUserinfo returns raw without its user info, for messages.
func stripUserinfo(raw string) string {
	if u := userinfo(raw); u != "" {
		return strings.Replace(raw, u, "", 1)
	}
	return raw
}

// credentials reports the URL at path when it carries user info, and
// returns true then. hint says where credentials go instead. The user
// info is masked in the source lines, the diagnostic does not show the
// variables the URL came from, and the URL is marked failed, so no other
// check quotes it (messages that quote a URL strip its user info anyway).
func (v *validator) credentials(path, raw, hint string) bool {
	u := userinfo(raw)
	if u == "" || !v.d.src.ok(path) {
		return false
	}
	subject := v.d.src.at(path)
	v.d.masks = append(v.d.masks, mask{rng: *subject, text: u})
	v.d.diags = append(v.d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Credentials in URL",
		Detail:   "The URL carries credentials (user info); " + hint + ". A URL is printed in logs and reports, so it must not hold them.",
		Subject:  subject,
	})
	v.d.src.failed[path] = true
	return true
}
