package prom

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Credentials (a bearer token, basic auth) belong to the origin of
// RemoteConfig.Address: the scheme, host and port it names. They are added
// by a RoundTripper to requests for that origin only, and a redirect to
// another origin is refused, not followed: a Prometheus address that
// answered 302 to another host used to hand that host the token on every
// attempt (net/http strips a caller's Authorization on such a redirect,
// but a RoundTripper adds it again to each hop).

// origin is the scheme, host and port of a URL, in lower case, the port
// filled in from the scheme when the URL has none (RFC 6454).
type origin struct{ scheme, host, port string }

// originOf returns the origin of u.
func originOf(u *url.URL) origin {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port()}
	if o.port == "" {
		switch o.scheme {
		case "http":
			o.port = "80"
		case "https":
			o.port = "443"
		}
	}
	return o
}

// String renders the origin as a base URL: "https://prometheus:443".
func (o origin) String() string { return o.scheme + "://" + net.JoinHostPort(o.host, o.port) }

// credentials sets the Authorization of its origin (set) on every request
// for that origin that carries no Authorization of its own; requests for
// any other origin pass through untouched.
type credentials struct {
	home origin
	set  func(*http.Request)
	next http.RoundTripper
}

// bearer returns the credentials "Authorization: Bearer token" for home.
func bearer(home origin, token string, next http.RoundTripper) *credentials {
	return &credentials{home: home, next: next, set: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }}
}

// basicAuth returns HTTP basic authentication credentials for home.
func basicAuth(home origin, username, password string, next http.RoundTripper) *credentials {
	return &credentials{home: home, next: next, set: func(r *http.Request) { r.SetBasicAuth(username, password) }}
}

// RoundTrip implements http.RoundTripper; it adds the credentials to a
// clone of the request, as the contract of RoundTripper forbids changing it.
func (c *credentials) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || originOf(req.URL) != c.home {
		return c.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	c.set(req)
	return c.next.RoundTrip(req)
}

// errCrossOrigin is the cause of a refused redirect to another origin;
// classify reports it as ErrServer, not retried.
var errCrossOrigin = errors.New("refused a redirect to another origin")

// maxRedirects is how many same-origin redirects one request follows, as
// net/http's default policy.
const maxRedirects = 10

// sameOriginRedirects is an http.Client CheckRedirect that follows
// redirects within home's origin only.
func sameOriginRedirects(home origin) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if o := originOf(req.URL); o != home {
			return fmt.Errorf("%w: the address redirected to %s; set it to the Prometheus that answers (credentials go to %s only)", errCrossOrigin, o, home)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
}
