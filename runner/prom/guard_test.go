package prom

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// bearerTransport adds "Authorization: Bearer token" to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// tokenClient is an HTTP client that sends token with every request.
func tokenClient(token string) *http.Client {
	return &http.Client{Transport: bearerTransport{token, http.DefaultTransport}, Timeout: 30 * time.Second}
}

// apiAnswer is an API answer's status code and envelope.
type apiAnswer struct {
	code int
	body response
}

// get sends GET base+path?form with the headers and decodes the answer.
func get(t *testing.T, c *http.Client, base, path string, form url.Values, header map[string]string) apiAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, base+path+"?"+form.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	var a apiAnswer
	a.code = resp.StatusCode
	if err := json.Unmarshal(b, &a.body); err != nil {
		t.Fatalf("GET %s: %d %q is not an API answer: %v", path, resp.StatusCode, b, err)
	}
	return a
}

// The embedded API answers only requests with its bearer token: none, a
// wrong one, or the right one as another scheme get 401; the Querier,
// which sends it, is answered.
func TestEmbeddedAPINeedsToken(t *testing.T) {
	verifyNoLeaks(t)
	e, err := StartEmbedded(context.Background(), EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(e.Token()) != 64 {
		t.Errorf("Token() = %q, want 64 hex digits", e.Token())
	}
	other, err := StartEmbedded(context.Background(), EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.Token() == e.Token() || e.own == e.Token() || len(e.own) != 64 {
		t.Error("two servers, or the run's client and the operator, have the same token")
	}
	q := url.Values{"query": {"1"}}
	for name, h := range map[string]map[string]string{
		"no token":             nil,
		"another's token":      {"Authorization": "Bearer " + other.Token()},
		"token without scheme": {"Authorization": e.Token()},
		"token as basic":       {"Authorization": "Basic " + e.Token()},
		"token prefix":         {"Authorization": "Bearer " + e.Token()[:63]},
	} {
		for _, path := range []string{"/api/v1/query", "/api/v1/labels", "/-/healthy"} {
			c := &http.Client{Timeout: 30 * time.Second}
			if path == "/-/healthy" {
				resp, err := c.Do(mustRequest(t, e.URL()+path, h))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s: status %d, want 401", name, path, resp.StatusCode)
				}
				continue
			}
			a := get(t, c, e.URL(), path, q, h)
			if a.code != http.StatusUnauthorized || a.body.Status != "error" || a.body.ErrorType != errUnauthorized {
				t.Errorf("%s %s: %d %+v, want 401 unauthorized", name, path, a.code, a.body)
			}
		}
	}
	a := get(t, tokenClient(e.Token()), e.URL(), "/api/v1/query", q, nil)
	if a.code != http.StatusOK || a.body.Status != "success" {
		t.Errorf("with the token: %d %+v, want 200 success", a.code, a.body)
	}
	// The scheme's name is case-insensitive (RFC 9110, 11.1).
	a = get(t, &http.Client{Timeout: 30 * time.Second}, e.URL(), "/api/v1/query", q, map[string]string{"Authorization": "bearer " + e.Token()})
	if a.code != http.StatusOK {
		t.Errorf(`with "bearer TOKEN": %d %+v, want 200`, a.code, a.body)
	}
	if v, err := e.Querier().Instant(context.Background(), "1", time.Now()); err != nil || v != 1 {
		t.Errorf("Querier: %v, %v; want 1", v, err)
	}
}

func mustRequest(t *testing.T, u string, header map[string]string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

// A request whose Host header is not localhost or a loopback address
// (a page of another site whose name was rebound to 127.0.0.1) gets 403,
// even with the token; loopback spellings are answered.
func TestEmbeddedAPIRefusesForeignHost(t *testing.T) {
	verifyNoLeaks(t)
	e, err := StartEmbedded(context.Background(), EmbeddedConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := tokenClient(e.Token())
	port := e.URL()[strings.LastIndex(e.URL(), ":")+1:]
	q := url.Values{"query": {"1"}}
	for _, host := range []string{"evil.example:" + port, "evil.example", "10.0.0.1:" + port, "127.0.0.1.evil.example:" + port, "localhost.evil.example", "0.0.0.0:" + port} {
		a := get(t, c, e.URL(), "/api/v1/query", q, map[string]string{"Host": host})
		if a.code != http.StatusForbidden || a.body.ErrorType != errForbidden {
			t.Errorf("Host %q: %d %+v, want 403", host, a.code, a.body)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port, "127.0.0.2"} {
		if a := get(t, c, e.URL(), "/api/v1/query", q, map[string]string{"Host": host}); a.code != http.StatusOK {
			t.Errorf("Host %q: %d %+v, want 200", host, a.code, a.body)
		}
	}
}

// A panic in a handler is answered 500 in the API's format, and the
// server goes on answering.
func TestGuardPanicIs500(t *testing.T) {
	calls := 0
	h := guard("own", "tok", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.URL.Path == "/panic" {
			panic("boom")
		}
		writeJSON(w, http.StatusOK, response{Status: "success"})
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := tokenClient("tok")
	a := get(t, c, srv.URL, "/panic", nil, nil)
	if a.code != http.StatusInternalServerError || a.body.ErrorType != errInternal || !strings.Contains(a.body.Error, "boom") {
		t.Errorf("panic: %d %+v, want 500 internal naming the panic", a.code, a.body)
	}
	if a := get(t, c, srv.URL, "/ok", nil, nil); a.code != http.StatusOK {
		t.Errorf("after the panic: %d %+v, want 200", a.code, a.body)
	}
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
}

// The run's own client has evaluation slots of its own: with every slot
// of the other clients taken, their next query waits (here until its
// timeout parameter, 503) while the run's is answered.
func TestEmbeddedAPIKeepsSlotsForTheRun(t *testing.T) {
	a := fixtureAPI(t)
	srv := httptest.NewServer(guard("own", "tok", a.handler()))
	defer srv.Close()
	for range cap(a.otherSem) {
		a.otherSem <- struct{}{}
	}
	q := url.Values{"query": {"1"}, "timeout": {"0.2"}}
	if got := get(t, tokenClient("tok"), srv.URL, "/api/v1/query", q, nil); got.code != http.StatusServiceUnavailable || got.body.ErrorType != errTimeout {
		t.Errorf("another client, its slots taken: %d %+v, want 503 timeout", got.code, got.body)
	}
	if got := get(t, tokenClient("own"), srv.URL, "/api/v1/query", q, nil); got.code != http.StatusOK {
		t.Errorf("the run's client: %d %+v, want 200", got.code, got.body)
	}
	for range cap(a.otherSem) {
		<-a.otherSem
	}
	if got := get(t, tokenClient("tok"), srv.URL, "/api/v1/query", q, nil); got.code != http.StatusOK {
		t.Errorf("another client, slots free: %d %+v, want 200", got.code, got.body)
	}
}
