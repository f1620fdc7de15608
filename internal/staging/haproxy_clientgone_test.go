package staging_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/staging"
)

// The experiment behind the package doc's "When the client leaves": a
// client with a 1 s timeout asks haproxy, whose tries (400 ms each) add up
// past it. Without "option abortonclose" haproxy makes every try after its
// client has gone; with it, it aborts the try in flight when the client
// closes and makes no more. haproxy's own "timeout client" does not cut
// the tries short either. haproxy's request log (written when the
// request ends) says when it is done and how many retries it made, so no
// check measures time; the one that depends on timing (abortonclose with 4
// retries: fewer than 5 tries, the 5th being due 0.6 s after the client
// left) has a wide margin.
func TestHAProxyClientGone(t *testing.T) {
	cases := []struct {
		name         string
		retries      int
		abortOnClose bool
		// allTries: haproxy makes Retries+1 tries whatever the client does.
		allTries bool
		// patient: the client waits for the answer and haproxy's "timeout
		// client" is 1 s instead.
		patient bool
	}{
		{"2 retries", 2, false, true, false},
		{"4 retries", 4, false, true, false},
		{"2 retries, abortonclose", 2, true, false, false},
		{"4 retries, abortonclose", 4, true, false, false},
		{"4 retries, haproxy's timeout client", 4, false, true, true},
	}
	const clientTimeout, tryTimeout = time.Second, 400 * time.Millisecond
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := startUpstream(t, 10*time.Second) // never answers in time
			cfg := staging.HAProxyConfig{Upstream: up.addr(), TryTimeout: tryTimeout,
				Retries: c.retries, AbortOnClose: c.abortOnClose, LogRequests: true}
			if c.patient {
				cfg.ClientTimeout = clientTimeout
				h := startHAProxy(t, cfg)
				if status, err := get(t.Context(), h.URL+"/work", "first-1", 0); err != nil || status != 504 {
					t.Fatalf("the client got %d, %v; want 504 after every try", status, err)
				}
				checkAllTries(t, h, up, c.retries)
				return
			}
			h := startHAProxy(t, cfg)
			if status, err := get(t.Context(), h.URL+"/work", "first-1", clientTimeout); err == nil {
				t.Fatalf("the client got %d; want it to time out after %s", status, clientTimeout)
			}
			if c.allTries {
				checkAllTries(t, h, up, c.retries)
				return
			}
			line, attempts := loggedTries(t, h, up)
			// abortonclose: the client (C) ended it; with 4 retries the last
			// tries (at 1.2 s and 1.6 s) would come after the client left at 1 s.
			if line.termination[0] != 'C' {
				t.Errorf("termination %s; want the client's abort (C...)", line.termination)
			}
			if c.retries == 4 && len(attempts) >= c.retries+1 {
				t.Errorf("%d tries: haproxy kept trying after its client left", len(attempts))
			}
		})
	}
}

// checkAllTries checks that haproxy made all its tries and ended on the
// server's timeout (sH).
func checkAllTries(t *testing.T, h *staging.HAProxy, up *upstream, retries int) {
	t.Helper()
	line, attempts := loggedTries(t, h, up)
	if len(attempts) != retries+1 || line.termination[0] != 's' {
		t.Errorf("want all %d tries and a server-side termination (sH), got %d and %s", retries+1, len(attempts), line.termination)
	}
}

// loggedTries waits for haproxy's log line of the request, then returns it
// and the requests the upstream saw, which must be one more than the
// retries haproxy logged.
func loggedTries(t *testing.T, h *staging.HAProxy, up *upstream) (requestLog, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	line := waitRequestLog(ctx, t, filepath.Join(h.Dir(), "haproxy.log"))
	attempts, gone := up.seen()
	t.Logf("haproxy: status %d, termination %s, %d retries; upstream saw %d requests, %d abandoned by haproxy",
		line.status, line.termination, line.retries, len(attempts), gone)
	if len(attempts) != line.retries+1 {
		t.Errorf("upstream saw %d requests; haproxy logged %d retries", len(attempts), line.retries)
	}
	return line, attempts
}

// requestLog is what the test reads from one httplog line.
type requestLog struct {
	status      int
	termination string // e.g. "sH--": server timeout while waiting for headers
	retries     int
}

// httplogRE matches haproxy's httplog line for GET /work: status, bytes,
// two cookie fields, termination state, actconn/feconn/beconn/srv_conn/retries.
var httplogRE = regexp.MustCompile(`\] fe \S+ \S+ (\d{3}) \d+ \S+ \S+ (\S{4}) \d+/\d+/\d+/\d+/(\d+) \d+/\d+ "GET /work `)

// waitRequestLog polls haproxy's log until its line for GET /work is there.
func waitRequestLog(ctx context.Context, t *testing.T, path string) requestLog {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := httplogRE.FindSubmatch(b); m != nil {
			status, _ := strconv.Atoi(string(m[1]))
			retries, _ := strconv.Atoi(string(m[3]))
			return requestLog{status: status, termination: string(m[2]), retries: retries}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no request line in haproxy's log: %v\n%s", ctx.Err(), b)
		case <-tick.C:
		}
	}
}
