package loadgen

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// failFirst answers a first attempt 500 and a retry 200, after 10 ms.
func failFirst(r *http.Request) (*http.Response, error) {
	time.Sleep(10 * time.Millisecond)
	if r.Header.Get("X-Attempt") == "1" {
		return status(500)
	}
	return status(200)
}

func TestCohortsAmplification(t *testing.T) {
	// 20 first attempts a second for 3 s; after the run every cohort is
	// complete and counts the attempts of its own requests, wherever their
	// retries fell in the timeline.
	after := func(d time.Duration, code int) func(*http.Request) (*http.Response, error) {
		return func(*http.Request) (*http.Response, error) { time.Sleep(d); return status(code) }
	}
	tests := []struct {
		name        string
		respond     func(*http.Request) (*http.Response, error)
		timeout     time.Duration
		retry       retry.Policy
		perFirst    int64 // attempts per logical request
		succeed     bool  // every request succeeds
		crossSecond bool  // retries fall in later seconds than their first attempts
	}{
		// Every attempt fails, R = 2: three attempts per request, none succeeds.
		{"every attempt fails, R = 2", after(10*time.Millisecond, 500), time.Second,
			retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.Outcome5xx)}, 3, false, false},
		// The same with timeouts and a backoff: a request spans 1.8 s, its
		// retries are sent in the next seconds but count in its cohort.
		{"retries in later seconds", hang, 400 * time.Millisecond,
			retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 300 * time.Millisecond}},
			3, false, true},
		// Every attempt succeeds: one attempt per request.
		{"every attempt succeeds", after(10*time.Millisecond, 200), time.Second,
			retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.Outcome5xx)}, 1, true, false},
		// A 4xx is an answer, not retried unless listed.
		{"4xx not retried", after(10*time.Millisecond, 404), time.Second,
			retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.Outcome5xx, vocab.OutcomeOther)}, 1, false, false},
		// The first attempt fails, its retry succeeds: two attempts, success.
		{"retry succeeds", failFirst, time.Second,
			retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.Outcome5xx)}, 2, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(3*time.Second, 20)},
					Arrivals: vocab.Uniform, Timeout: tc.timeout, Transport: newFakeRT(tc.respond), Retry: tc.retry})
				checkAccounting(t, d)
				cs, tl := d.Cohorts(0), d.Timeline()
				if len(cs) < 3 {
					t.Fatalf("cohorts %+v, want one per second of the schedule", cs)
				}
				for i, c := range cs {
					succeeded := int64(0)
					if tc.succeed {
						succeeded = c.First
					}
					if i < 3 && c.First != 20 || c.Attempts != tc.perFirst*c.First || c.Succeeded != succeeded || c.Open != 0 {
						t.Errorf("cohort %+v, want %d first attempts, %d attempts each, %d succeeded, none open", c, 20, tc.perFirst, succeeded)
					}
				}
				if cross := tl[0].Attempts() != cs[0].Attempts; cross != tc.crossSecond {
					t.Errorf("second 0 sent %d attempts, its cohort %d: retries in later seconds %v, want %v",
						tl[0].Attempts(), cs[0].Attempts, cross, tc.crossSecond)
				}
			})
		})
	}
}

func TestCohortsOpen(t *testing.T) {
	// 10 first attempts in second 0 (every 100 ms); a cohort's requests are
	// open while an attempt is in flight or a retry waits for its backoff,
	// and leave it when they end for any reason.
	slow := func(*http.Request) (*http.Response, error) { time.Sleep(2 * time.Second); return status(200) }
	type check struct {
		at   time.Duration // since the start of the run
		want Cohort        // cohort 0 then
	}
	tests := []struct {
		name     string
		respond  func(*http.Request) (*http.Response, error)
		retry    retry.Policy
		cancelAt time.Duration // cancel the run then; 0 = run to its end
		checks   []check
		end      Cohort // cohort 0 when Run has returned
	}{
		// Attempts of 2 s: all in flight at 1.5 s; those sent at 0 … 0.5 s
		// have ended at 2.55 s.
		{"attempts in flight", slow, retry.Policy{}, 0,
			[]check{{1500 * time.Millisecond, Cohort{First: 10, Attempts: 10, Open: 10}},
				{2550 * time.Millisecond, Cohort{First: 10, Attempts: 10, Succeeded: 6, Open: 4}}},
			Cohort{First: 10, Attempts: 10, Succeeded: 10}},
		// First attempts fail at once, retries wait 2 s and succeed: open
		// while waiting, ended once the retries are answered (by 2.92 s).
		{"retries waiting for their backoff", failFirst,
			retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome5xx), Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 2 * time.Second}}, 0,
			[]check{{1500 * time.Millisecond, Cohort{First: 10, Attempts: 10, Open: 10}},
				{2515 * time.Millisecond, Cohort{First: 10, Attempts: 16, Succeeded: 5, Open: 5}}},
			Cohort{First: 10, Attempts: 20, Succeeded: 10}},
		// Cancelling the run ends the requests whose retries wait.
		{"run cancelled", failFirst,
			retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome5xx), Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 2 * time.Second}},
			1500 * time.Millisecond,
			[]check{{1200 * time.Millisecond, Cohort{First: 10, Attempts: 10, Open: 10}}},
			Cohort{First: 10, Attempts: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newBubbleDriver(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(time.Second, 10)},
					Arrivals: vocab.Uniform, Timeout: 5 * time.Second, Transport: newFakeRT(tc.respond), Retry: tc.retry})
				if cs := d.Cohorts(0); cs != nil {
					t.Errorf("cohorts before the run: %+v", cs)
				}
				start := time.Now()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- d.Run(ctx) }()
				for _, ck := range tc.checks {
					time.Sleep(ck.at - time.Since(start))
					synctest.Wait()
					cs := d.Cohorts(0)
					if len(cs) != int(ck.at/time.Second)+1 {
						t.Errorf("at %v: %d cohorts, want one per second so far", ck.at, len(cs))
						continue
					}
					if cs[0] != ck.want {
						t.Errorf("at %v: cohort 0 %+v, want %+v", ck.at, cs[0], ck.want)
					}
					for _, c := range cs[1:] {
						if c != (Cohort{Index: c.Index}) {
							t.Errorf("at %v: cohort %+v, want none (no first attempts after second 0)", ck.at, c)
						}
					}
					if got := d.Cohorts(1); len(got) != len(cs)-1 || len(got) > 0 && got[0].Index != 1 {
						t.Errorf("at %v: Cohorts(1) = %+v", ck.at, got)
					}
					if got := d.Cohorts(len(cs)); got != nil {
						t.Errorf("at %v: Cohorts past the current second = %+v", ck.at, got)
					}
				}
				if tc.cancelAt > 0 {
					time.Sleep(tc.cancelAt - time.Since(start))
					cancel()
				}
				if err := <-done; err != nil && !(tc.cancelAt > 0 && errors.Is(err, context.Canceled)) {
					t.Fatal(err)
				}
				checkAccounting(t, d)
				if c := d.Cohorts(0)[0]; c != tc.end {
					t.Errorf("after the run: cohort 0 %+v, want %+v", c, tc.end)
				}
			})
		})
	}
}
