package loadgen

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// A spike far beyond what one process can send (50 million first attempts
// a second, as multiplier = 1e6 asks) must not wedge the dispatcher: what
// it cannot send is counted as dropped or refused in bulk, and the next
// stage starts on time, so the baseline after the spike is sent.
func TestDriverRateBeyondReach(t *testing.T) {
	for _, tc := range []struct {
		name     string
		arrivals vocab.Arrivals
		// minPlanned is the fewest arrivals second 2 may plan: exactly 10
		// when uniform; a Poisson count of mean 10 is below 1 with
		// probability 5e-5 (below 5 with 3 %, too often for a test).
		minPlanned int64
	}{
		{"uniform", vocab.Uniform, 9},
		{"poisson", vocab.Poisson, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSeen()
			srv := server(t, s, func(w http.ResponseWriter, r *http.Request) { s.note(r) })
			stages := []Stage{Constant(time.Second, 5e7), Constant(2*time.Second, 10)}
			d := runDriver(t, Config{
				Request:     Request{URL: srv.URL},
				Stages:      stages,
				Arrivals:    tc.arrivals,
				Seed:        7,
				Timeout:     time.Second,
				MaxInFlight: 8,
			})
			tot := checkAccounting(t, d)
			// Every arrival of the spike is accounted for, not just the ones
			// the dispatcher got to.
			if want := Expected(stages, 3*time.Second); float64(tot.Planned) < want*0.99 || float64(tot.Planned) > want*1.01 {
				t.Errorf("planned %d, want about %.0f", tot.Planned, want)
			}
			if tot.Dropped+tot.Refused < tot.Planned/2 {
				t.Errorf("dropped %d + refused %d of %d planned: the spike cannot have been sent", tot.Dropped, tot.Refused, tot.Planned)
			}
			// The baseline stage from 1 s on is the dispatcher's again:
			// by its second second every arrival planned is sent, none
			// dropped behind the spike's backlog.
			tl := d.Timeline()
			if len(tl) < 3 {
				t.Fatalf("%d seconds in the timeline", len(tl))
			}
			if s := tl[2]; s.Planned < tc.minPlanned || s.Sent != s.Planned || s.Dropped != 0 || s.Refused != 0 {
				t.Errorf("second 2 (baseline 10/s): planned %d, sent %d, dropped %d, refused %d; want every arrival sent",
					s.Planned, s.Sent, s.Dropped, s.Refused)
			}
		})
	}
}

// Tracers hold attempt slots: with max_in_flight = 5 against a service
// that never answers, no more than 5 round trips are ever in flight,
// tracers included; tracers hold at most half the slots, and a tracer
// that finds none is not sent but counted, never queued.
func TestClockTracersHoldSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct := &countingRT{rt: newFakeRT(hang)}
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(2*time.Second, 20)},
			Arrivals: vocab.Uniform, Timeout: time.Second, Transport: ct, MaxInFlight: 5,
			Tracers: &vocab.Tracers{Rate: 20, Timeout: 10 * time.Second}})
		tot := checkAccounting(t, d)
		if p := ct.peak.Load(); p > 5 {
			t.Errorf("%d round trips in flight at once, tracers included; bound 5", p)
		}
		if b := d.Bounds(); b.MaxInFlight != 5 || b.MaxTracers != 2 {
			t.Errorf("bounds %+v, want 5 slots of which 2 for tracers", b)
		}
		// The first two tracers hang until the run ends and hold the two
		// tracer slots; the other 38 of the 2 s × 20/s are refused.
		if tot.TracerSent != 2 || tot.TracerRefused != 38 {
			t.Errorf("tracers sent %d, refused %d; want 2 and 38", tot.TracerSent, tot.TracerRefused)
		}
		// The load keeps its three slots: three first attempts a second
		// are sent (each times out after 1 s), the rest refused.
		if tot.Sent < 5 || tot.Sent+tot.Refused != 40 {
			t.Errorf("first attempts sent %d, refused %d of 40", tot.Sent, tot.Refused)
		}
		if m := scrape(t, d); !strings.Contains(m, "trigger_tracers_refused_total 38\n") {
			t.Error("metrics lack trigger_tracers_refused_total 38")
		}
	})
}

// The driver never follows a redirect: a 302 to another host is the
// attempt's answer (OutcomeOther unless OKStatus lists 302), and the
// other host sees nothing, with either transport.
func TestDriverNeverFollowsRedirects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		netHTTP bool  // net/http's Transport instead of the lean one
		ok      []int // Config.OKStatus
		want    vocab.Outcome
	}{
		{"lean", false, nil, vocab.OutcomeOther},
		{"net/http", true, nil, vocab.OutcomeOther},
		{"302 listed as ok", false, []int{200, 302}, vocab.OutcomeOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			elsewhere := newSeen()
			other := server(t, elsewhere, func(w http.ResponseWriter, r *http.Request) { elsewhere.note(r) })
			s := newSeen()
			srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
				s.note(r)
				http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
			})
			var rt http.RoundTripper
			if tc.netHTTP {
				nt := NewTransport(DefaultTransportOptions())
				t.Cleanup(nt.CloseIdleConnections)
				rt = nt
			}
			d := runDriver(t, Config{Request: Request{URL: srv.URL}, Stages: []Stage{Constant(500*time.Millisecond, 20)},
				Arrivals: vocab.Uniform, Timeout: time.Second, Transport: rt, OKStatus: tc.ok,
				Retry: retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.OutcomeOther)}})
			tot := checkAccounting(t, d)
			if tot.Sent != 10 || tot.FirstOutcomes[tc.want] != 10 {
				t.Errorf("sent %d, first outcomes %v; want 10 %v", tot.Sent, tot.FirstOutcomes, tc.want)
			}
			if wantOK := tc.want == vocab.OutcomeOK; (tot.Succeeded == tot.Sent) != wantOK {
				t.Errorf("succeeded %d of %d", tot.Succeeded, tot.Sent)
			}
			elsewhere.mu.Lock()
			defer elsewhere.mu.Unlock()
			if n := len(elsewhere.attempts); n != 0 {
				t.Errorf("the redirect's target received %d requests", n)
			}
		})
	}
}

// NewDriver bounds MaxInFlight, its default included, by the descriptor
// limit, and says so.
func TestNewDriverClampsToFDLimit(t *testing.T) {
	saved := fdLimits
	t.Cleanup(func() { fdLimits = saved })
	fdLimits = func() (uint64, uint64, error) { return 1024, 4096, nil }
	for _, tc := range []struct {
		name      string
		requested int
		want      int
		clamped   bool
	}{
		{"default 20000", 0, 1024 - FDReserve, true},
		{"above", 5000, 1024 - FDReserve, true},
		{"within", 500, 500, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDriver(Config{Request: Request{URL: "http://127.0.0.1:9/"}, Timeout: time.Second, MaxInFlight: tc.requested})
			if err != nil {
				t.Fatal(err)
			}
			b := d.Bounds()
			if d.MaxInFlight() != tc.want || b.Clamped != tc.clamped || b.FDLimit != 1024 || d.rq.limit != tc.want {
				t.Errorf("max in flight %d, bounds %+v, retry queue %d; want %d, clamped %v", d.MaxInFlight(), b, d.rq.limit, tc.want, tc.clamped)
			}
			if tc.clamped && !strings.Contains(b.Reason, "1024") {
				t.Errorf("reason %q does not name the limit", b.Reason)
			}
		})
	}
	fdLimits = func() (uint64, uint64, error) { return 100, 100, nil }
	if _, err := NewDriver(Config{Request: Request{URL: "http://127.0.0.1:9/"}, Timeout: time.Second}); err == nil {
		t.Error("a limit that leaves no descriptor for attempts was accepted")
	}
}

func TestInFlightBounds(t *testing.T) {
	tests := []struct {
		name      string
		requested int
		soft      uint64
		want      Bounds
	}{
		{"unknown limit", 20000, 0, Bounds{MaxInFlight: 20000, MaxTracers: 10000, Requested: 20000}},
		{"unlimited", 20000, math.MaxUint64, Bounds{MaxInFlight: 20000, MaxTracers: 10000, Requested: 20000, FDLimit: math.MaxUint64}},
		{"within", 100, 1024, Bounds{MaxInFlight: 100, MaxTracers: 50, Requested: 100, FDLimit: 1024}},
		{"exactly the room left", 896, 1024, Bounds{MaxInFlight: 896, MaxTracers: 448, Requested: 896, FDLimit: 1024}},
		{"clamped", 897, 1024, Bounds{MaxInFlight: 896, MaxTracers: 448, Requested: 897, FDLimit: 1024, Clamped: true}},
		{"one slot, no tracer", 1, 1024, Bounds{MaxInFlight: 1, MaxTracers: 0, Requested: 1, FDLimit: 1024}},
	}
	for _, tc := range tests {
		got, err := inFlightBounds(tc.requested, tc.soft)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (got.Reason != "") != got.Clamped {
			t.Errorf("%s: clamped %v with reason %q", tc.name, got.Clamped, got.Reason)
		}
		got.Reason = ""
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if _, err := inFlightBounds(10, FDReserve); err == nil {
		t.Error("a limit of FDReserve descriptors was accepted")
	}
}

// TestClockRecoversAfterBacklog: a dispatcher left more than MaxInFlight
// arrivals behind (by a spike) drops the oldest and then sends again at a
// baseline above 1,000/s (one arrival per minBatchGap): the catch-up it
// keeps must leave room for the arrivals that come due while it sends,
// or every later batch is found too far behind again and dropped whole.
func TestClockRecoversAfterBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) { return status(200) })
		stages := []Stage{Constant(50*time.Millisecond, 1e6), Constant(2*time.Second, 5000)}
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Transport: rt, Stages: stages,
			Arrivals: vocab.Uniform, Timeout: time.Second, MaxInFlight: 100})
		tl := d.Timeline()
		if len(tl) < 2 {
			t.Fatalf("%d seconds", len(tl))
		}
		if s := tl[1]; s.Sent < s.Planned*99/100 || s.Planned < 4900 {
			t.Errorf("second 1 (baseline 5000/s): planned %d, sent %d, dropped %d, refused %d; want every arrival sent",
				s.Planned, s.Sent, s.Dropped, s.Refused)
		}
	})
}
