package retry

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},                         // absent
		{"2", 2 * time.Second},          // delay-seconds
		{"0.5", 500 * time.Millisecond}, // fractional, tolerated
		{"-1", 0},                       // negative
		{"soon", 0},                     // malformed
		{now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second}, // HTTP date
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},                    // past date
		// Huge delays are long waits (then capped by the policy), never
		// an immediate retry: a billion seconds used to read as absent.
		{"1000000", 1000000 * time.Second},
		{"1000000000", MaxRetryAfter},
		{"1e400", MaxRetryAfter},
		{"Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryAfter},
	}
	for _, tc := range tests {
		if got := ParseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
