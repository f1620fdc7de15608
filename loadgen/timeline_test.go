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

func TestHistSummary(t *testing.T) {
	// Summaries are within the histogram's 1 % of the exact order statistics.
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name   string
		values []time.Duration
		want   Summary // Count exact; the rest within 1 %
	}{
		{"none", nil, Summary{}},
		{"one value", []time.Duration{ms(250)}, Summary{Count: 1, Mean: 0.25, Min: 0.25, P10: 0.25, P50: 0.25, P90: 0.25, P99: 0.25, Max: 0.25}},
		{"1 … 100 ms", func() []time.Duration {
			var v []time.Duration
			for i := 1; i <= 100; i++ {
				v = append(v, ms(i))
			}
			return v
		}(), Summary{Count: 100, Mean: 0.0505, Min: 0.001, P10: 0.010, P50: 0.050, P90: 0.090, P99: 0.099, Max: 0.100}},
		// A nearly fixed latency (a proxy's 1 s timeout) with a few fast
		// answers below the 10th percentile: P10 … P90 stays at 1 s.
		{"nearly fixed", append([]time.Duration{ms(5), ms(6), ms(7)}, func() []time.Duration {
			var v []time.Duration
			for i := range 97 {
				v = append(v, ms(1000+i%3))
			}
			return v
		}()...), Summary{Count: 100, Mean: 0.9703, Min: 0.005, P10: 1.000, P50: 1.001, P90: 1.002, P99: 1.002, Max: 1.002}},
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.01*want+1e-6 }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHist()
			for _, v := range tc.values {
				h.record(v)
			}
			got := h.summary()
			ok := got.Count == tc.want.Count
			for _, p := range [][2]float64{{got.Mean, tc.want.Mean}, {got.Min, tc.want.Min}, {got.P10, tc.want.P10},
				{got.P50, tc.want.P50}, {got.P90, tc.want.P90}, {got.P99, tc.want.P99}, {got.Max, tc.want.Max}} {
				ok = ok && near(p[0], p[1])
			}
			if !ok {
				t.Errorf("summary %+v, want %+v (± 1 %%)", got, tc.want)
			}
		})
	}
}

func TestTracerWaitOnlyWhenAnswered(t *testing.T) {
	// Tracers every 250 ms for 2 s, each answered after 1 s with the status
	// given (or never): their latency is a wait sample only when the service
	// answered (2xx, 3xx, 4xx); a status ≥ 500 goes to TracerErrorLatency.
	// Normal attempts take 1.6 s, so the run (and its tracers) lasts until
	// the last tracer has its answer or its timeout.
	tests := []struct {
		name      string
		code      int // 0: never answered (the tracer times out)
		wait, err bool
	}{
		{"200 is the wait", 200, true, false},
		{"304 is the wait", 304, true, false},
		{"404 is the wait", 404, true, false},
		{"429 is neither", 429, false, false},
		{"500 is an error", 500, false, true},
		{"503 is an error", 503, false, true},
		{"504 from a proxy is an error", 504, false, true},
		{"a timeout is neither", 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
					if r.Header.Get("X-Attempt") != "0" {
						time.Sleep(1600 * time.Millisecond)
						return status(200)
					}
					if tc.code == 0 {
						return hang(r)
					}
					time.Sleep(time.Second)
					return status(tc.code)
				})
				d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(2*time.Second, 10)},
					Arrivals: vocab.Uniform, Timeout: 2 * time.Second, Transport: rt, Tracers: &vocab.Tracers{Rate: 4, Timeout: 1500 * time.Millisecond}})
				tot := checkAccounting(t, d)
				var wantWait, wantErr int64
				if tc.wait {
					wantWait = tot.TracerSent
				}
				if tc.err {
					wantErr = tot.TracerSent
				}
				if tot.TracerSent != 8 || tot.TracerWait.Count != wantWait || tot.TracerErrorLatency.Count != wantErr {
					t.Errorf("%d tracers: wait %+v, error latency %+v; want %d and %d samples",
						tot.TracerSent, tot.TracerWait, tot.TracerErrorLatency, wantWait, wantErr)
				}
				for _, s := range []Summary{tot.TracerWait, tot.TracerErrorLatency} {
					if s.Count > 0 && (s.Min < 0.99 || s.P10 < 0.99 || s.Max > 1.01) {
						t.Errorf("summary %+v, want every sample at 1 s", s)
					}
				}
				var perSecond int64
				for _, s := range d.Timeline() {
					perSecond += s.TracerWait.Count + s.TracerErrorLatency.Count
				}
				if perSecond != wantWait+wantErr {
					t.Errorf("the seconds hold %d tracer samples, the totals %d", perSecond, wantWait+wantErr)
				}
				line := "trigger_tracer_wait_seconds_count " + map[bool]string{true: "8", false: "0"}[tc.wait] + "\n"
				if m := scrape(t, d); !strings.Contains(m, line) {
					t.Errorf("metrics lack %q", line)
				}
			})
		})
	}
}

func TestErrorLatency(t *testing.T) {
	// First attempts come back as a 504 after a proxy's fixed 1 s timeout,
	// retries succeed in 10 ms: ErrorLatency holds the first attempts only,
	// nearly fixed at 1 s, while Latency spans both.
	synctest.Test(t, func(t *testing.T) {
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
			if r.Header.Get("X-Attempt") == "1" {
				time.Sleep(time.Second)
				return status(504)
			}
			time.Sleep(10 * time.Millisecond)
			return status(200)
		})
		d := runBubble(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(3*time.Second, 20)},
			Arrivals: vocab.Uniform, Timeout: 2 * time.Second, Transport: rt,
			Retry: retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome5xx)}})
		tot := checkAccounting(t, d)
		if e := tot.ErrorLatency; e.Count != tot.Sent || e.Min < 0.99 || e.P10 < 0.99 || e.P90 > 1.01 || e.Max > 1.01 {
			t.Errorf("error latency %+v, want %d samples at 1 s", e, tot.Sent)
		}
		if l := tot.Latency; l.Count != tot.Attempts() || l.Min > 0.0101 || l.Max < 0.99 {
			t.Errorf("latency %+v, want %d samples from 10 ms to 1 s", l, tot.Attempts())
		}
		// Each second holds the errors that completed in it: none in second
		// 0, 20 in each of seconds 1 … 3.
		var n int64
		for i, s := range d.Timeline() {
			n += s.ErrorLatency.Count
			if want := int64(min(i, 1) * 20); i < 4 && s.ErrorLatency.Count != want {
				t.Errorf("second %d: error latency %+v, want %d samples", i, s.ErrorLatency, want)
			}
		}
		if n != tot.ErrorLatency.Count {
			t.Errorf("the seconds hold %d error samples, the totals %d", n, tot.ErrorLatency.Count)
		}
	})
}
