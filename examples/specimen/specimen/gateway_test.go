package specimen

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestGatewayRetriesOnTimeout(t *testing.T) {
	cases := []struct {
		name      string
		rate      float64 // pod rate: 1/s never answers within a 300 ms try
		status    int     // what the client gets
		outcome   int
		upstream  uint64 // tries sent to the pods
		first     uint64 // of which first attempts at the pods
		abandoned uint64 // tries served after the gateway gave up on them
	}{
		// A pod too slow for every try: R_g + 1 = 3 tries, one first and two
		// retries at the pods, 504 to the client, all three served later.
		{"timeouts", 1, 504, gwTimeout, 3, 1, 3},
		// A fast pod: one try, answered.
		{"fast", 1000, 200, gwOK, 1, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := Config{PodRate: tc.rate, Gateway: GatewayConfig{Enabled: true, Retries: 2}}
				s := newTestServer(t, cfg)
				res, outcome := s.gw.do(t.Context(), nil, "1", time.Time{}, false, false)
				if res.status != tc.status || outcome != tc.outcome {
					t.Fatalf("got %+v outcome %d", res, outcome)
				}
				time.Sleep(5 * time.Second)
				synctest.Wait()
				st := s.Stats()
				if st.GatewayUpstream != tc.upstream || st.IngressFirst != tc.first || st.Ingress() != tc.upstream || st.Abandoned != tc.abandoned {
					t.Fatalf("stats %+v", st)
				}
			})
		})
	}
}

func TestGatewayClientGone(t *testing.T) {
	cases := []struct {
		name     string
		cancel   bool   // CancelOnClientGone
		upstream uint64 // tries made after the client left at once
	}{
		// Default: the gateway does not notice, and makes every try.
		{"unnoticed", false, 3},
		// CancelOnClientGone: it stops after the try in flight.
		{"noticed", true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := Config{PodRate: 1, Gateway: GatewayConfig{Enabled: true, Retries: 2, CancelOnClientGone: tc.cancel}}
				s := newTestServer(t, cfg)
				gone := make(chan struct{})
				close(gone)
				s.gw.do(t.Context(), gone, "2", time.Time{}, false, false)
				if st := s.Stats(); st.GatewayUpstream != tc.upstream || st.IngressRetry != tc.upstream {
					t.Fatalf("stats %+v", st)
				}
			})
		})
	}
}
