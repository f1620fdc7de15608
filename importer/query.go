package importer

import (
	"net/url"
	"slices"
	"sort"
	"strings"
)

// credentialParams are query parameter names (lower case) that carry a
// credential: a recorded URL's session, token or signature would be sent
// by every request of the scenario and kept in its file.
var credentialParams = map[string]bool{
	"session": true, "sessionid": true, "session_id": true, "sid": true, "jsessionid": true, "phpsessid": true,
	"token": true, "access_token": true, "refresh_token": true, "id_token": true, "auth_token": true, "jwt": true,
	"api_key": true, "apikey": true, "api-key": true, "key": true, "access_key": true, "accesskey": true,
	"sig": true, "signature": true, "password": true, "passwd": true, "pwd": true, "pass": true,
	"auth": true, "authorization": true, "code": true, "secret": true, "client_secret": true, "otp": true,
}

// credentialParts are parts of a parameter name that mark it a credential
// whatever surrounds them: X-Amz-Signature, X-Amz-Security-Token,
// X-Amz-Credential, X-Goog-Signature, AWSAccessKeyId, csrf_token, ...
var credentialParts = []string{"token", "secret", "passw", "signature", "session", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "credential"}

// credentialParam reports whether a query parameter named name carries a
// credential (any case).
func credentialParam(name string) bool {
	n := strings.ToLower(name)
	if credentialParams[n] {
		return true
	}
	for _, p := range credentialParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// stripCredentialParams removes from raw the credentials a recorded URL
// can carry: a user:password@ before its host, and the credential-like
// parameters (see credentialParam) of its path segments, its query and its
// fragment (an OAuth implicit flow's #access_token=…), keeping the rest as
// recorded, in order. It returns the URL and the names removed.
func stripCredentialParams(raw string) (string, []string) {
	rest, fragment, hasFragment := strings.Cut(raw, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	base, removed := stripUserinfo(base)
	base, inPath := stripPathParams(base)
	query, inQuery := stripParams(query)
	fragment, inFragment := stripParams(fragment)
	removed = slices.Concat(removed, inPath, inQuery, inFragment)
	if len(removed) == 0 {
		return raw, nil
	}
	out := base
	if hasQuery && query != "" {
		out += "?" + query
	}
	if hasFragment && fragment != "" {
		out += "#" + fragment
	}
	return out, removed
}

// stripParams removes the credential-like name=value pairs from an
// &-separated list, keeping the others as written.
func stripParams(list string) (string, []string) {
	if list == "" {
		return "", nil
	}
	var kept, removed []string
	for _, part := range strings.Split(list, "&") {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if part != "" && credentialParam(name) {
			removed = append(removed, name)
			continue
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&"), removed
}

// stripUserinfo removes a user:password@ from the authority of a URL
// without its query and fragment, named "userinfo" among the removed.
func stripUserinfo(base string) (string, []string) {
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok {
		return base, nil
	}
	authority, path, hasPath := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return base, nil
	}
	out := scheme + "://" + authority[at+1:]
	if hasPath {
		out += "/" + path
	}
	return out, []string{"userinfo"}
}

// stripPathParams removes credential-like path parameters from a URL
// without its query: the ";jsessionid=…" a servlet container appends to a
// path segment (any ";name=value" whose name credentialParam marks), and
// returns the URL and the names removed.
func stripPathParams(base string) (string, []string) {
	start := 0
	if i := strings.Index(base, "://"); i >= 0 {
		start = i + 3
		if j := strings.IndexByte(base[start:], '/'); j >= 0 {
			start += j
		} else {
			return base, nil
		}
	}
	if !strings.Contains(base[start:], ";") {
		return base, nil
	}
	var removed []string
	segments := strings.Split(base[start:], "/")
	for i, seg := range segments {
		parts := strings.Split(seg, ";")
		kept := parts[:1]
		for _, p := range parts[1:] {
			name, _, _ := strings.Cut(p, "=")
			if credentialParam(name) {
				removed = append(removed, name)
				continue
			}
			kept = append(kept, p)
		}
		segments[i] = strings.Join(kept, ";")
	}
	return base[:start] + strings.Join(segments, "/"), removed
}

// stripCredentials strips the credentials (stripCredentialParams) from each
// recorded URL, noting the names in its Stripped.
func stripCredentials(recs []Recorded) {
	for i := range recs {
		recs[i].URL, recs[i].Stripped = stripCredentialParams(recs[i].URL)
	}
}

// Stripped is the distinct names, sorted, of the query parameters the
// import removed from recs' URLs as credentials.
func Stripped(recs []Recorded) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		for _, n := range r.Stripped {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
