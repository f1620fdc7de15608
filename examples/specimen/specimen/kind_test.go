package specimen

import (
	"net/http"
	"testing"
	"time"
)

func TestClassifyAttempt(t *testing.T) {
	cases := []struct {
		attempt, gateway string
		want             Kind
	}{
		{"", "", KindFirst},      // no header: a first attempt
		{"1", "", KindFirst},     // the client's first attempt
		{"0", "", KindTracer},    // a wait tracer
		{"2", "", KindRetry},     // the client's first retry
		{"7", "", KindRetry},     // any later retry
		{"x", "", KindFirst},     // garbage counts as absent
		{"-3", "", KindFirst},    // negative counts as absent
		{"1", "1", KindFirst},    // the gateway's first try of a first attempt
		{"1", "2", KindRetry},    // the gateway's retry of a first attempt is a retry
		{"0", "3", KindRetry},    // even of a tracer: it is extra work
		{"2", "1", KindRetry},    // the gateway's first try of a client retry
		{"1", "junk", KindFirst}, // garbage gateway header counts as absent
	}
	for _, c := range cases {
		if got := ClassifyAttempt(c.attempt, c.gateway); got != c.want {
			t.Errorf("ClassifyAttempt(%q, %q) = %v, want %v", c.attempt, c.gateway, got, c.want)
		}
	}
}

func TestDeadlineOf(t *testing.T) {
	now := t0
	cases := []struct {
		v    string
		want time.Time
	}{
		{"", time.Time{}},                        // absent: no deadline
		{"250", now.Add(250 * time.Millisecond)}, // milliseconds from arrival
		{"0.5", now.Add(500 * time.Microsecond)}, // fractions allowed
		{"-5", now},                              // already passed
		{"soon", time.Time{}},                    // invalid: none
	}
	for _, c := range cases {
		h := http.Header{}
		if c.v != "" {
			h.Set(HeaderDeadline, c.v)
		}
		if got := deadlineOf(h, now); !got.Equal(c.want) {
			t.Errorf("deadlineOf(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want int
	}{
		{0, 1},                       // at least one second
		{300 * time.Millisecond, 1},  // rounded up
		{time.Second, 1},             // exact
		{1500 * time.Millisecond, 2}, // rounded up
	}
	for _, c := range cases {
		if got := retryAfterSeconds(c.d); got != c.want {
			t.Errorf("retryAfterSeconds(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
