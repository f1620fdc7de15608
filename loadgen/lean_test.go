package loadgen

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestNetHTTPTransportE2E(t *testing.T) {
	// The loopback end-to-end tests again, through net/http's Transport.
	useNetHTTP = true
	defer func() { useNetHTTP = false }()
	for name, f := range map[string]func(*testing.T){
		"NeverAnswers": TestDriverNeverAnswers, // timeouts, X-Attempt, X-Deadline-Ms
		"RetryAfter":   TestDriverRetryAfter,   // status, Retry-After header
		"Always503":    TestDriverAlways503,    // POST with a body, retried
		"Fast":         TestDriverFast,         // keep-alive reuse, tracers
		"ConnectError": TestDriverConnectError, // dial refused
		"Deadline":     TestDriverDeadline,     // shrinking X-Deadline-Ms
		"Registerer":   TestDriverRegisterer,   // metrics, frozen timeline
		"Cancel":       TestDriverCancel,       // run cancelled mid-attempt
		"MaxInFlight":  TestDriverMaxInFlight,  // the bound on concurrent round trips
	} {
		t.Run(name, f)
	}
}

func TestLeanTransportResponses(t *testing.T) {
	// Wire cases the lean path must get right: chunked bodies, HEAD, 204,
	// 1xx before the response, Connection: close, a server closing idle
	// connections (the reused connection fails before a response and the
	// request is retried once on a new one).
	var conns atomic.Int64
	srv := wireCaseServer(&conns, nil)
	defer srv.Close()
	lt := NewLeanTransport(DefaultTransportOptions())
	defer lt.CloseIdleConnections()
	do := func(method, path, body string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, rd)
		resp, err := lt.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s %s: body: %v", method, path, err)
		}
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/chunked", "", 200, "hello world"},  // chunked transfer encoding
		{"HEAD", "/chunked", "", 200, ""},            // no body after HEAD
		{"GET", "/nocontent", "", 204, ""},           // no body with 204
		{"GET", "/early", "", 200, "after hints"},    // 103 before the response
		{"POST", "/body", "payload", 200, "payload"}, // request body
		{"GET", "/close", "", 200, "bye"},            // server closes after
		{"GET", "/", "", 200, "ok"},                  // a new connection after the close
		{"GET", "/", "", 200, "ok"},                  // reused
	}
	for _, tc := range tests {
		if code, got := do(tc.method, tc.path, tc.body); code != tc.code || got != tc.want {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, code, got, tc.code, tc.want)
		}
	}
	// A request larger than the socket's send buffer: the write made in
	// the poller's read wait is short, the rest goes through the
	// connection's Write, and the response is still read whole.
	big := strings.Repeat("0123456789abcdef", 512<<10) // 8 MiB
	if code, got := do("POST", "/body", big); code != 200 || got != big {
		t.Errorf("POST of 8 MiB = %d with %d bytes back, want 200 and the same 8 MiB", code, len(got))
	}
	before := conns.Load()
	for i := 0; i < 20; i++ {
		do("GET", "/", "")
	}
	if n := conns.Load() - before; n != 0 {
		t.Errorf("%d new connections for 20 sequential requests: keep-alive not reused", n)
	}
	// The server drops its idle connections: the next requests must still
	// succeed, a POST included (it may not be replayed, so the closed
	// connection must be noticed before it is used).
	srv.CloseClientConnections()
	if code, got := do("GET", "/", ""); code != 200 || got != "ok" {
		t.Errorf("GET after the server closed idle connections: %d %q", code, got)
	}
	srv.CloseClientConnections()
	if code, got := do("POST", "/body", "again"); code != 200 || got != "again" {
		t.Errorf("POST after the server closed idle connections: %d %q", code, got)
	}
}

// wireCaseServer starts a server of the wire cases the lean paths must get
// right, by path: chunked, HEAD of it, 204, 103 before the response,
// Connection: close, a body echoed, a 503 with Retry-After, a head longer
// than the read buffer, a body longer than an attempt reads; "ok" for any
// other. It counts the connections it accepts in conns. check (nil: none)
// vets each request first: a request it refuses gets a 400.
func wireCaseServer(conns *atomic.Int64, check func(*http.Request) bool) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil && !check(r) {
			http.Error(w, "refused by the test", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("hello "))
			w.(http.Flusher).Flush()
			w.Write([]byte("world"))
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/early":
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("after hints"))
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		case "/body":
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		case "/busy":
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/longheader":
			w.Header().Set("X-Long", strings.Repeat("y", 3000))
			w.Write([]byte(strings.Repeat("z", 100000)))
		case "/huge":
			w.Header().Set("Content-Length", "2097152")
			w.Write(make([]byte, 2<<20))
		default:
			w.Write([]byte("ok"))
		}
	}))
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	return srv
}

func TestLeanTransportHTTP2Option(t *testing.T) {
	// Asked for HTTP/2, the lean transport hands http:// to its net/http
	// fallback, which speaks h2c with prior knowledge.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &p
	srv.Start()
	defer srv.Close()
	o := DefaultTransportOptions()
	o.HTTP2 = true
	lt := NewLeanTransport(o)
	defer lt.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	resp, err := lt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "HTTP/2.0" {
		t.Errorf("served over %q, want HTTP/2.0", b)
	}
}

// Closing a response body read only in part drops the connection at once:
// the server stops being able to write, instead of the client reading the
// rest of the body off the wire (net/http's body drains on Close).
func TestLeanCloseDoesNotDrain(t *testing.T) {
	const chunks = 30
	written := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(chunks*1024))
		n := 0
		for ; n < chunks; n++ {
			if _, err := w.Write(make([]byte, 1024)); err != nil {
				break
			}
			w.(http.Flusher).Flush()
			time.Sleep(50 * time.Millisecond)
		}
		written <- n
	}))
	defer srv.Close()
	rt := NewLeanTransport(DefaultTransportOptions())
	req, _ := http.NewRequest("GET", srv.URL, nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := <-written; n == chunks {
		t.Errorf("the server wrote all %d chunks: closing the body read the rest of it", chunks)
	}
}
