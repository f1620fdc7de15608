package prom

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// maxRequestBody bounds a request's form body, in bytes: a query is at
// most queryshape.MaxCostQueryBytes, and a few parameters more.
const maxRequestBody = 1 << 20

// Error types of the guard's answers (not Prometheus' own).
const (
	errUnauthorized = "unauthorized" // 401
	errForbidden    = "forbidden"    // 403
)

// newToken returns a fresh bearer token: 32 bytes from crypto/rand, in
// hex. crypto/rand does not fail on the platforms Go supports.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// guard wraps the API's handler with, in order: a recover that turns a
// panic into a 500 (the process lives on); a Host check that answers 403
// to a Host header that is not localhost or a loopback address (a page
// of another site whose name was rebound to 127.0.0.1 sends its own
// name); a bearer token, without which the answer is 401: own (the run's
// own client, whose requests are marked for ownRequest) or token (the
// one given to the operator); and a bound on the request body.
func guard(own, token string, h http.Handler) http.Handler {
	wantOwn, want := []byte(own), []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p) // net/http's own sentinel: abort the answer quietly
				}
				// The headers may be gone already; then the client sees a cut answer.
				writeJSON(w, http.StatusInternalServerError, response{Status: "error", ErrorType: errInternal,
					Error: fmt.Sprintf("internal error: %v", p)})
			}
		}()
		if !loopbackHost(r.Host) {
			writeJSON(w, http.StatusForbidden, response{Status: "error", ErrorType: errForbidden,
				Error: "the Host header must be localhost or a loopback address"})
			return
		}
		got := []byte(bearerCredentials(r.Header.Get("Authorization")))
		isOwn := subtle.ConstantTimeCompare(got, wantOwn) == 1
		if !isOwn && subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="trigger"`)
			writeJSON(w, http.StatusUnauthorized, response{Status: "error", ErrorType: errUnauthorized,
				Error: "this API needs the run's bearer token: send Authorization: Bearer TOKEN"})
			return
		}
		if isOwn {
			r = r.WithContext(context.WithValue(r.Context(), ownKey{}, true))
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
		h.ServeHTTP(w, r)
	})
}

// ownKey marks, in a request's context, a request of the run's own client.
type ownKey struct{}

// ownRequest reports whether guard found the run's own token on the
// request whose context is ctx.
func ownRequest(ctx context.Context) bool {
	own, _ := ctx.Value(ownKey{}).(bool)
	return own
}

// loopbackHost reports whether a Host header names this machine
// (IsLoopbackHost), with or without a port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return IsLoopbackHost(host)
}

// IsLoopbackHost reports whether host (no port; IPv6 brackets allowed)
// names this machine: localhost, in any case, or a loopback IP address.
// The embedded server's Host check, its listen check and the driver's
// --metrics-addr all judge loopback by it.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearerCredentials is the token of an Authorization header of the Bearer
// scheme, whose name is case-insensitive (RFC 9110, section 11.1: Grafana
// or a proxy may send "bearer"); "" for any other header.
func bearerCredentials(header string) string {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return token
}
