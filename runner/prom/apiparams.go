package prom

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/common/model"
)

// Bounds of the time parameters when none is given, in milliseconds.
const (
	minTimeMs = math.MinInt64 / 2
	maxTimeMs = math.MaxInt64 / 2
)

// maxPointsPerSeries bounds the points of a range query, as Prometheus does.
const maxPointsPerSeries = 11000

// parseTime reads a time parameter as Prometheus does: Unix seconds with
// a fraction, or RFC 3339.
func parseTime(s string) (time.Time, error) {
	if t, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(t) || math.IsInf(t, 0) || math.Abs(t) > 1e15 {
			return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
		}
		sec, frac := math.Modf(t)
		ns := math.Round(frac*1000) / 1000
		return time.Unix(int64(sec), int64(ns*float64(time.Second))).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
}

// parseTimeOr reads the time parameter s, or returns def when s is "".
func parseTimeOr(s string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	return parseTime(s)
}

// parseDuration reads a duration parameter as Prometheus does: seconds
// with a fraction, or a Prometheus duration such as 5m or 1h30m.
func parseDuration(s string) (time.Duration, error) {
	if d, err := strconv.ParseFloat(s, 64); err == nil {
		ns := d * float64(time.Second)
		if math.IsNaN(ns) || ns >= math.MaxInt64 || ns < math.MinInt64 {
			return 0, fmt.Errorf("cannot parse %q to a valid duration. It overflows int64", s)
		}
		return time.Duration(ns), nil
	}
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), nil
	}
	return 0, fmt.Errorf("cannot parse %q to a valid duration", s)
}

// msOr converts the time parameter s to milliseconds, def when s is "".
func msOr(s string, def int64) (int64, error) {
	if s == "" {
		return def, nil
	}
	t, err := parseTime(s)
	if err != nil {
		return 0, err
	}
	return t.UnixMilli(), nil
}
