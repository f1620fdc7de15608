package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// fakeRT is an in-memory transport for tests in a synctest bubble: respond
// decides each attempt's fate, and every request's arrival time (since the
// fake start) is logged per X-Request-Id.
type fakeRT struct {
	start   time.Time
	respond func(r *http.Request) (*http.Response, error)
	mu      sync.Mutex
	log     map[string][]time.Duration
	hdrs    map[string][]string // "attempt/deadline" per request
}

func newFakeRT(respond func(r *http.Request) (*http.Response, error)) *fakeRT {
	return &fakeRT{start: time.Now(), respond: respond, log: map[string][]time.Duration{}, hdrs: map[string][]string{}}
}

func (f *fakeRT) RoundTrip(r *http.Request) (*http.Response, error) {
	id := r.Header.Get("X-Request-Id")
	f.mu.Lock()
	f.log[id] = append(f.log[id], time.Since(f.start))
	f.hdrs[id] = append(f.hdrs[id], r.Header.Get("X-Attempt")+"/"+r.Header.Get("X-Deadline-Ms"))
	f.mu.Unlock()
	return f.respond(r)
}

func status(code int) (*http.Response, error) {
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: http.NoBody}, nil
}

// hang never answers: the attempt ends when the client gives up.
func hang(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// newBubbleDriver returns a driver whose dispatcher sleeps on the (fake)
// runtime clock only.
func newBubbleDriver(t *testing.T, cfg Config) *Driver {
	t.Helper()
	d, err := NewDriver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.sleeper = timerSleeper
	return d
}

func runBubble(t *testing.T, cfg Config) *Driver {
	t.Helper()
	d := newBubbleDriver(t, cfg)
	if err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestClockScheduleExact(t *testing.T) {
	// In fake time the dispatcher must hit every planned time exactly: the
	// timeline has exactly the planned count each second and zero lag.
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
			time.Sleep(30 * time.Millisecond)
			return status(200)
		})
		stages := []Stage{Constant(2*time.Second, 100), Constant(2*time.Second, 1000), Ramp(2*time.Second, 1000, 0)}
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: stages, Arrivals: vocab.Uniform,
			Timeout: time.Second, Transport: rt, Tracers: &vocab.Tracers{Rate: 4, Timeout: time.Second}})
		tot := checkAccounting(t, d)
		tl := d.Timeline()
		for i := 0; i < 6; i++ {
			want := Expected(stages, time.Duration(i+1)*time.Second) - Expected(stages, time.Duration(i)*time.Second)
			if got := float64(tl[i].Planned); got < want-1 || got > want+1 {
				t.Errorf("second %d: planned %v, want %v ± 1", i, got, want)
			}
			if tl[i].Sent != tl[i].Planned {
				t.Errorf("second %d: sent %d of %d planned", i, tl[i].Sent, tl[i].Planned)
			}
		}
		if tot.Lag.Max > 2e-6 || tot.Dropped != 0 || tot.Succeeded != tot.Sent {
			t.Errorf("lag %+v, totals %+v", tot.Lag, tot.Second)
		}
		// Tracers: 4 per second for the 6 s of the schedule, each waited 30 ms.
		if tot.TracerSent != 24 || tot.TracerOutcomes[vocab.OutcomeOK] != 24 || tot.TracerWait.Max < 0.029 || tot.TracerWait.Max > 0.031 {
			t.Errorf("tracers sent %d, outcomes %v, wait %+v", tot.TracerSent, tot.TracerOutcomes, tot.TracerWait)
		}
		// In flight at the end of second 2 (1000/s, 30 ms each): 30 ± 1 (the
		// boundary's sends and completions may fall either side of the seal).
		if n := tl[2].InFlight; n < 29 || n > 31 {
			t.Errorf("in flight at the end of second 2: %d, want 30 ± 1", n)
		}
	})
}

func TestClockRetryTimes(t *testing.T) {
	// Exponential backoff without jitter from 100 ms: attempts at 0, +d1,
	// +d1+100, +... exactly; X-Deadline-Ms shrinks to the overall deadline.
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
			time.Sleep(10 * time.Millisecond)
			return status(500)
		})
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(time.Second, 1)},
			Arrivals: vocab.Uniform, Timeout: 300 * time.Millisecond, Transport: rt,
			Retry: retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.Outcome5xx), Deadline: 900 * time.Millisecond,
				Backoff: retry.Backoff{Kind: vocab.BackoffExponential, Base: 100 * time.Millisecond, Max: time.Second}}})
		tot := checkAccounting(t, d)
		if len(rt.log) != 1 {
			t.Fatalf("%d logical requests, want 1", len(rt.log))
		}
		for id, at := range rt.log {
			// sends: 0; 10+100; 120+200; 330+400 = 730; 740+800 > 900: deadline.
			if got := fmt.Sprint(at); got != "[0s 110ms 320ms 730ms]" {
				t.Errorf("attempt times %s", got)
			}
			if got := strings.Join(rt.hdrs[id], " "); got != "1/300 2/300 3/300 4/170" {
				t.Errorf("X-Attempt/X-Deadline-Ms: %s", got)
			}
		}
		if tot.Retries != 3 || tot.Failed != 1 {
			t.Errorf("totals %+v", tot.Second)
		}
	})
}

func TestClockTimeoutRetries(t *testing.T) {
	// A service that never answers, 50 first attempts per second for 2 s,
	// τ_out = 1 s, R = 3: 400 attempts, all timeouts, the last ending at
	// 1.98 + 4 s. While first attempts and retries overlap, a second ends
	// with about (50 first + 50 retry)/s × 1 s = 100 attempts in flight (99
	// or 100 depending on whether the boundary's send is counted).
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(hang)
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(2*time.Second, 50)},
			Arrivals: vocab.Uniform, Timeout: time.Second, Transport: rt,
			Retry: retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)}})
		tot := checkAccounting(t, d)
		if tot.Sent != 100 || tot.Retries != 300 || tot.RetryOutcomes[vocab.OutcomeTimeout] != 300 || tot.Failed != 100 {
			t.Errorf("totals %+v", tot.Second)
		}
		if el := d.Elapsed(); el != 5980*time.Millisecond {
			t.Errorf("run ended at %v, want 5.98s", el)
		}
		tl := d.Timeline()
		for _, i := range []int{1, 2, 3} {
			if n := tl[i].InFlight; n < 98 || n > 100 {
				t.Errorf("in flight at the end of second %d: %d, want 99 ± 1", i, n)
			}
		}
	})
}

func TestClockReplan(t *testing.T) {
	// Replan at 1.505 s: the old schedule's arrivals before it (0 … 1.5 s,
	// 151) are kept, then 10/s for 1 s from the call (10 more).
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) { return status(200) })
		d := newBubbleDriver(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(time.Minute, 100)},
			Arrivals: vocab.Uniform, Timeout: time.Second, Transport: rt})
		done := make(chan error)
		go func() { done <- d.Run(context.Background()) }()
		time.Sleep(1505 * time.Millisecond)
		d.Replan([]Stage{Constant(time.Second, 10)})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		tot := checkAccounting(t, d)
		if tot.Planned != 161 {
			t.Errorf("planned %d, want 161", tot.Planned)
		}
		// The last arrival is at 2.405 s; the replanned stage lasts until 2.505 s.
		if el := d.Elapsed(); el != 2505*time.Millisecond {
			t.Errorf("ended at %v, want 2.505s (the end of the replanned stage)", el)
		}
	})
}

func TestClockDropBeyondMaxLag(t *testing.T) {
	// A dispatcher that reaches a planned time more than MaxLag late drops
	// it and counts it; within MaxLag it still sends.
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) { return status(200) })
		d, err := NewDriver(Config{Request: Request{URL: "http://127.0.0.1:9/"}, Timeout: time.Second, Transport: rt, MaxLag: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		d.start = time.Now()
		d.started.Store(true)
		time.Sleep(time.Second)
		ctx := context.Background()
		none := NewSchedule(nil, vocab.Uniform, 0)             // no other arrival to skip
		d.first(ctx, 850*time.Millisecond, none, 0, time.Hour) // 150 ms late: dropped
		d.first(ctx, 950*time.Millisecond, none, 0, time.Hour) // 50 ms late: sent
		d.attempts.Wait()
		tot := d.Totals()
		if tot.Planned != 2 || tot.Dropped != 1 || tot.Sent != 1 || tot.Succeeded != 1 {
			t.Errorf("totals %+v", tot.Second)
		}
		if tot.Lag.P50 < 0.049 || tot.Lag.P50 > 0.051 {
			t.Errorf("lag %+v, want 50 ms", tot.Lag)
		}
	})
}

func TestClockZeroRateIsAPause(t *testing.T) {
	// Demand dropped to zero for 3 s (what the runner's on_trap "drop"
	// does) is a pause, not the end of the run: Run lasts until the stage
	// ends, tracers keep probing through it, and every second is counted.
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) { return status(200) })
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"},
			Stages:   []Stage{Constant(time.Second, 10), Constant(3*time.Second, 0)},
			Arrivals: vocab.Uniform, Timeout: time.Second, Transport: rt, Tracers: &vocab.Tracers{Rate: 2, Timeout: time.Second}})
		tot := checkAccounting(t, d)
		if el := d.Elapsed(); el != 4*time.Second {
			t.Errorf("run ended at %v, want 4s (the end of the zero-rate stage)", el)
		}
		if tot.Sent != 10 || tot.TracerSent < 7 {
			t.Errorf("sent %d first attempts and %d tracers; want 10 and a tracer every 0.5 s through the pause", tot.Sent, tot.TracerSent)
		}
		if n := len(d.Timeline()); n < 4 {
			t.Errorf("%d seconds in the timeline, want 4", n)
		}
	})
}
