package scenarios

import (
	"net/netip"
	"strings"
)

// NormalizeHost returns the form of a host name or address that
// allow_hosts compares: lower case, without the [ ] around an IPv6
// literal, without one trailing dot (the root of a fully qualified name).
// "[::1]", "::1" and "LOCALHOST." normalise to "::1" and "localhost".
// h carries no port.
func NormalizeHost(h string) string {
	h = strings.ToLower(h)
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(h, ".")
}

// HostAllowed reports whether host (a URL's Hostname(): no port) is in
// allow, comparing normalised forms (NormalizeHost). The decoder checks
// the target URL, Host headers and scrape URLs with it; the runner checks
// the target again before sending anything.
func HostAllowed(allow []string, host string) bool {
	h := NormalizeHost(host)
	if h == "" {
		return false
	}
	for _, a := range allow {
		if NormalizeHost(a) == h {
			return true
		}
	}
	return false
}

// HeaderHost returns the host of a Host or :authority header value, its
// port stripped: "api.example.com:8443" → "api.example.com", "[::1]:80" →
// "[::1]", "::1" → "::1".
func HeaderHost(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") {
		if i := strings.IndexByte(v, ']'); i > 0 {
			return v[:i+1]
		}
		return v
	}
	if strings.Count(v, ":") == 1 {
		v, _, _ = strings.Cut(v, ":")
	}
	return v
}

// hostPort reports whether an allow_hosts entry looks like host:port (a
// colon, and not an IPv6 address), which no URL's host would ever match.
func hostPort(h string) bool {
	_, err := netip.ParseAddr(h)
	return strings.Contains(h, ":") && err != nil
}
