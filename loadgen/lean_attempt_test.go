package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The driver's attempts (LeanTransport.attempt with a leanRequest): the
// wire cases of TestLeanTransportResponses again, the ones parseLeanHead
// reads and the ones it leaves to net/http, plus what only this path does
// (the tracking headers added to bytes built once, Retry-After, a body
// longer than the read buffer, read to its end).
func TestLeanAttemptResponses(t *testing.T) {
	var conns atomic.Int64
	srv := wireCaseServer(&conns, func(r *http.Request) bool {
		if r.URL.Path == "/body" {
			b, _ := io.ReadAll(r.Body)
			if string(b) != "payload" {
				return false
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		return r.Header.Get("X-Request-Id") == "run-7" && r.Header.Get("X-Attempt") == "2" && r.Header.Get("X-Deadline-Ms") == "900" &&
			r.Header.Get("X-Team") == "sre" && r.Host == "svc.example" && r.UserAgent() != ""
	})
	defer srv.Close()
	lt := NewLeanTransport(DefaultTransportOptions())
	defer lt.CloseIdleConnections()
	track := []byte("X-Request-Id: run-7\r\nX-Attempt: 2\r\nX-Deadline-Ms: 900\r\n")
	do := func(method, path, body string) (int, string, bool) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "svc.example"
		req.Header.Set("X-Team", "sre")
		req.Header.Set("X-Attempt", "stale") // replaced by the attempt's own
		lr, err := newLeanRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		before := conns.Load()
		code, ra, err := lt.attempt(context.Background(), lr, track, time.Now().Add(5*time.Second))
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return code, ra, conns.Load() == before
	}
	tests := []struct {
		method, path, body string
		code               int
		retryAfter         string
	}{
		{"GET", "/", "", 200, ""},
		{"GET", "/chunked", "", 200, ""},      // chunked: net/http's parser
		{"HEAD", "/chunked", "", 200, ""},     // no body after HEAD
		{"GET", "/nocontent", "", 204, ""},    // no body with 204
		{"GET", "/early", "", 200, ""},        // 103 before the response
		{"POST", "/body", "payload", 200, ""}, // request body
		{"GET", "/busy", "", 503, "3"},
		{"GET", "/longheader", "", 200, ""},
		{"GET", "/close", "", 200, ""}, // the server closes after
		{"GET", "/huge", "", 200, ""},  // read to its end, discarded
	}
	for _, tc := range tests {
		if code, ra, _ := do(tc.method, tc.path, tc.body); code != tc.code || ra != tc.retryAfter {
			t.Errorf("%s %s = %d Retry-After %q, want %d %q", tc.method, tc.path, code, ra, tc.code, tc.retryAfter)
		}
	}
	// Every response above but /close leaves its connection open and idle:
	// the next request reuses one.
	for _, path := range []string{"/", "/chunked", "/early", "/busy", "/longheader", "/huge"} {
		do("GET", path, "")
		if _, _, reused := do("GET", "/", ""); !reused {
			t.Errorf("GET / after GET %s opened a new connection", path)
		}
	}
	// /close takes the one idle connection and closes it.
	for _, path := range []string{"/close"} {
		do("GET", "/", "")
		do("GET", path, "")
		lt.mu.Lock()
		idle := 0
		for _, cs := range lt.idle {
			idle += len(cs)
		}
		lt.mu.Unlock()
		if idle != 0 {
			t.Errorf("after GET %s, %d idle connections, want 0 (the one it used closed)", path, idle)
		}
	}
	// The server drops its idle connections: a GET is sent again on a new
	// one, and a POST (not replayable) finds the closed one before using it.
	srv.CloseClientConnections()
	if code, _, _ := do("GET", "/", ""); code != 200 {
		t.Errorf("GET after the server closed idle connections: %d", code)
	}
	srv.CloseClientConnections()
	if code, _, _ := do("POST", "/body", "payload"); code != 200 {
		t.Errorf("POST after the server closed idle connections: %d", code)
	}
}

// An attempt whose deadline passes mid-response, and one whose run is
// cancelled, fail as the driver classifies them: a timeout, and not one.
func TestLeanAttemptDeadlineAndCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	lt := NewLeanTransport(DefaultTransportOptions())
	defer lt.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	lr, err := newLeanRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = lt.attempt(context.Background(), lr, nil, time.Now().Add(200*time.Millisecond))
	if o := ClassifyError(context.Background(), err); o.String() != "timeout" {
		t.Errorf("past its deadline: %v, classified %v, want timeout", err, o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, _, err = lt.attempt(ctx, lr, nil, time.Now().Add(time.Minute))
	if o := ClassifyError(ctx, err); o.String() != "other" {
		t.Errorf("run cancelled: %v, classified %v, want other", err, o)
	}
}

// A response that arrives a byte at a time: the lean reader waits for the
// rest of the head (and, once the head outgrows its buffer, hands it to
// net/http unread); one cut short by a close fails as a connect error.
func TestLeanAttemptResponseInPieces(t *testing.T) {
	responses := map[string]string{
		"/small": "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\nno",
		"/long":  "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", 700) + "\r\nContent-Length: 2\r\n\r\nok",
		"/cut":   "HTTP/1.1 200 OK\r\nContent-Le",
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				for _, b := range []byte(responses[req.URL.Path]) {
					if _, err := c.Write([]byte{b}); err != nil {
						return
					}
					time.Sleep(200 * time.Microsecond)
				}
			}()
		}
	}()
	lt := NewLeanTransport(DefaultTransportOptions())
	defer lt.CloseIdleConnections()
	attempt := func(path string) (int, string, error) {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+path, nil)
		lr, err := newLeanRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		return lt.attempt(context.Background(), lr, nil, time.Now().Add(10*time.Second))
	}
	if code, ra, err := attempt("/small"); err != nil || code != 503 || ra != "1" {
		t.Errorf("/small = %d %q %v, want 503 \"1\"", code, ra, err)
	}
	if code, _, err := attempt("/long"); err != nil || code != 200 {
		t.Errorf("/long = %d %v, want 200", code, err)
	}
	_, _, err = attempt("/cut")
	if o := ClassifyError(context.Background(), err); err == nil || o.String() != "connect" {
		t.Errorf("/cut: %v, classified %v, want a connect error", err, o)
	}
}

// A configured tracking header, in any case, gives way to the attempt's own.
func TestLeanRequestDropsConfiguredTrackingHeaders(t *testing.T) {
	req, _ := http.NewRequest("GET", "http://127.0.0.1:1/", nil)
	req.Header["x-attempt"] = []string{"stale"}
	req.Header.Set("X-Request-Id", "stale")
	req.Header.Set("X-Team", "sre")
	lr, err := newLeanRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.ToLower(string(lr.head))
	if strings.Contains(head, "stale") || !strings.Contains(head, "x-team: sre") {
		t.Errorf("head %q: want X-Team and no configured tracking header", lr.head)
	}
}
