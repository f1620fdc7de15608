package prom

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// A remote server's retries wait as loadgen's exponential backoff with
// equal jitter: in [d/2, d] for d = base·2^n capped at max (n = 0 for the
// first retry), doubling until the cap.
func TestRemoteBackoff(t *testing.T) {
	r, err := NewRemote(RemoteConfig{Address: "http://127.0.0.1:9", RetryBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for n, d := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		d *= time.Millisecond
		if lo, hi := r.backoff.Bounds(n+1, 0); lo != d/2 || hi != d {
			t.Errorf("retry %d: waits in [%v, %v], want [%v, %v]", n+1, lo, hi, d/2, d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	cases := map[string]time.Duration{
		"":                              0,               // absent
		"3":                             3 * time.Second, // seconds
		" 1 ":                           time.Second,     // spaces
		"-1":                            0,               // negative
		"Wed, 21 Oct 2015 07:28:00 GMT": 0,               // HTTP date: not used
		"9223372036854775807":           24 * time.Hour,  // capped, not overflowed into a negative wait
	}
	for h, want := range cases {
		if got := parseRetryAfter(h); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	const addr = "http://prom:9090"
	refused := &url.Error{Op: "Post", URL: addr, Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	cases := []struct {
		name      string
		err       error
		status    int
		want      error
		transient bool
	}{
		// Connection refused: unreachable, and may pass (a restart).
		{"refused", refused, 0, ErrUnreachable, true},
		// Reset mid-answer.
		{"reset", &url.Error{Err: syscall.ECONNRESET}, 0, ErrUnreachable, true},
		// Closed connection.
		{"eof", &url.Error{Err: io.EOF}, 0, ErrUnreachable, true},
		// Unknown host: unreachable for good.
		{"dns", &url.Error{Err: &net.DNSError{Err: "no such host", Name: "prom", IsNotFound: true}}, 0, ErrUnreachable, false},
		// Our own timeout: not retried.
		{"timeout", &url.Error{Err: context.DeadlineExceeded}, 0, ErrTimeout, false},
		// 5xx and 429: transient.
		{"503", &v1.Error{Type: v1.ErrServer, Msg: "server error: 503"}, 503, ErrServer, true},
		{"500", &v1.Error{Type: v1.ErrServer, Msg: "server error: 500"}, 500, ErrServer, true},
		{"429", &v1.Error{Type: v1.ErrClient, Msg: "client error: 429"}, 429, ErrServer, true},
		// Other 4xx: not.
		{"403", &v1.Error{Type: v1.ErrClient, Msg: "client error: 403"}, 403, ErrServer, false},
		// Query errors.
		{"bad_data", &v1.Error{Type: v1.ErrBadData, Msg: "parse error"}, 400, ErrBadQuery, false},
		{"execution", &v1.Error{Type: v1.ErrExec, Msg: "many-to-many"}, 422, ErrBadQuery, false},
		// A body cut in the middle of a 200.
		{"cut body", io.ErrUnexpectedEOF, 200, ErrServer, true},
	}
	for _, c := range cases {
		got := classify(context.Background(), c.err, &attempt{status: c.status}, addr, time.Second)
		if !errors.Is(got.err, c.want) || got.transient != c.transient {
			t.Errorf("%s: %v (transient %v), want %v (transient %v)", c.name, got.err, got.transient, c.want, c.transient)
		}
		if msg := got.err.Error(); c.want != ErrBadQuery && !strings.Contains(msg, "prometheus at "+addr) {
			t.Errorf("%s: %q does not name the address", c.name, msg)
		}
	}
	// The caller's own cancellation is returned as is.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := classify(ctx, refused, &attempt{}, addr, time.Second); !errors.Is(got.err, context.Canceled) || got.transient {
		t.Errorf("cancelled: %v", got.err)
	}
	// The cause of a refused connection reads without the url.Error wrapper.
	got := classify(context.Background(), refused, &attempt{}, addr, time.Second).err.Error()
	if want := "prometheus at http://prom:9090: unreachable: dial tcp: connect: connection refused"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
