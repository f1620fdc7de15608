package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// A probe is one request, sent as a first attempt is (the tracking
// headers included), classified as the driver classifies it, and never
// retried, whatever the policy says.
func TestProbeSendsOneRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		delay   time.Duration
		outcome vocab.Outcome
	}{
		{"answered", 200, 0, vocab.OutcomeOK},
		{"refused", 503, 0, vocab.Outcome503},
		{"too slow", 200, 2 * time.Second, vocab.OutcomeTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			var attempt atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				attempt.Store(r.Header.Get("X-Attempt"))
				select {
				case <-time.After(tc.delay):
				case <-r.Context().Done():
				}
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			res, err := Probe(context.Background(), Config{Request: Request{URL: srv.URL + "/work"}, Timeout: 300 * time.Millisecond,
				Retry: retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome503)}})
			if err != nil {
				t.Fatal(err)
			}
			srv.Close() // waits for the handler: every request it got is counted
			if n.Load() != 1 || attempt.Load() != "1" || res.Outcome != tc.outcome || res.Method != "GET" || res.URL != srv.URL+"/work" {
				t.Errorf("%d requests (attempt %v), result %+v; want one, %s", n.Load(), attempt.Load(), res, tc.outcome)
			}
			if tc.outcome == vocab.OutcomeOK && res.Status != 200 {
				t.Errorf("status %d", res.Status)
			}
		})
	}
}

// A probe of a gRPC target is one call, not retried, classified by its
// status.
func TestProbeGRPC(t *testing.T) {
	for _, code := range []codes.Code{codes.OK, codes.Unavailable} {
		s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{code: code} })
		res, err := Probe(context.Background(), Config{Request: grpcReq(t, s, `{}`), Timeout: time.Second,
			Retry: retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.Outcome503)}})
		if err != nil {
			t.Fatal(err)
		}
		if want := ClassifyGRPC(code); res.Outcome != want || s.all != 1 || !res.GRPC || !strings.HasPrefix(res.Method, "gRPC /") {
			t.Errorf("%v: probe %+v after %d calls; want %s after one", code, res, s.all, want)
		}
	}
}
