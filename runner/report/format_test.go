package report

import (
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// Numbers as the reports print them.
func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{3, "3"},                             // an integer amplification: no ".00"
		{2.9945292354168833, "2.99"},         // A_fail
		{0.24845253828189098, "0.25"},        // ρ, rounded
		{49.68421052631579, "49.7"},          // λ
		{199.97465459557807, "200"},          // C
		{8443, "8443"},                       // a count
		{-0.42721288515406164, "-0.43"},      // a falling wait
		{0, "0"},                             // zero
		{-0.0001, "-0.0001"},                 // tiny: two significant digits
		{math.NaN(), unknown},                // unknown
		{math.Inf(1), "∞"},                   // infinite
		{1e300, "1e+300"},                    // multiplier 1e300: not 301 digits
		{-2.5e300, "-2.5e+300"},              // nor a negative one
		{123456789012345, "123456789012345"}, // below 10¹⁵: every digit
	} {
		if got := num(tc.x); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// Estimates in their units.
func TestWithUnit(t *testing.T) {
	for _, tc := range []struct {
		p    *float64
		unit string
		want string
	}{
		{analysis.Num(67.33), "s", "67.3 s"},         // a recovery time
		{analysis.Num(300), "s", "5 min 00 s"},       // a long one
		{analysis.Num(49.7), "1/s", "49.7/s"},        // a rate
		{analysis.Num(-0.25), "s/s", "-0.25 s/s"},    // a slope
		{analysis.Num(1.17), "", "1.17"},             // a ratio
		{nil, "s", unknown},                          // unknown
		{analysis.Num(3e301), "s", "over 292 years"}, // beyond any time.Duration: not an overflowed figure
		{analysis.Num(-1e300), "s", "-1e+300 s"},     // a negative one, in scientific notation
	} {
		if got := withUnit(tc.p, tc.unit); got != tc.want {
			t.Errorf("withUnit(%v, %q) = %q, want %q", analysis.Value(tc.p), tc.unit, got, tc.want)
		}
	}
}

// Measured values with their 95 % intervals, both ends in the unit.
func TestWithInterval(t *testing.T) {
	n := analysis.Num
	for _, tc := range []struct {
		p, lo, hi *float64
		unit      string
		want      string
	}{
		{n(9.02), n(8.91), n(9.13), "", "9.02 (8.91–9.13)"},                         // A_fail
		{n(55), n(51.2), n(58.9), "s", "55.0 s (51.2 s–58.9 s)"},                    // a recovery time
		{n(49.7), n(48.1), n(51.2), "1/s", "49.7/s (48.1/s–51.2/s)"},                // a rate
		{n(-0.26), n(-0.29), n(-0.23), "s/s", "-0.26 s/s (-0.29 s/s to -0.23 s/s)"}, // a falling slope: no "–-"
		{n(0.02), n(-0.01), n(0.05), "s/s", "0.02 s/s (-0.01 s/s to 0.05 s/s)"},     // straddling zero
		{n(3), nil, n(3.1), "", "3"},                                                // half an interval: none
		{nil, n(1), n(2), "", unknown},                                              // no value: no interval
	} {
		if got := withInterval(tc.p, tc.lo, tc.hi, tc.unit); got != tc.want {
			t.Errorf("withInterval(%v, %v, %v, %q) = %q, want %q",
				analysis.Value(tc.p), analysis.Value(tc.lo), analysis.Value(tc.hi), tc.unit, got, tc.want)
		}
	}
}

// Durations that may be under a second.
func TestShortSeconds(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{0.3, "300 ms"},   // a proxy's per-try timeout
		{0.0125, "13 ms"}, // rounded to the millisecond
		{1, "1.0 s"},      // τ_out
		{300, "5 min 00 s"},
	} {
		if got := shortSeconds(tc.s); got != tc.want {
			t.Errorf("shortSeconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// Latency percentiles keep their three digits: in ms below a second, in s
// above, "–" when null.
func TestLatencySeconds(t *testing.T) {
	for _, tc := range []struct {
		p    *float64
		want string
	}{
		{nil, "–"},
		{analysis.Num(0.000421), "0.42 ms"}, // a loopback service: not "0 ms"
		{analysis.Num(0.0125), "12.5 ms"},
		{analysis.Num(1), "1 s"},
		{analysis.Num(1.02), "1.02 s"},
		{analysis.Num(131), "131 s"},
	} {
		if got := latencySeconds(tc.p); got != tc.want {
			t.Errorf("latencySeconds(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
