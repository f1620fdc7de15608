package retry

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter is the longest delay ParseRetryAfter returns: a year.
const MaxRetryAfter = 365 * 24 * time.Hour

// ParseRetryAfter parses a Retry-After header value: delay-seconds or an
// HTTP date (relative to now). It returns 0 for an empty, malformed or past
// value; a delay too long for a time.Duration (a billion seconds, a date
// in year 9999) is MaxRetryAfter, which the retry policy's cap
// (Policy.RetryAfterMax, 60 s by default) then shortens, as it does
// any long delay: a huge value is a long wait, never an immediate retry.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case math.IsNaN(secs) || secs <= 0:
			return 0
		case secs >= MaxRetryAfter.Seconds():
			return MaxRetryAfter
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, MaxRetryAfter)
		}
	}
	return 0
}
