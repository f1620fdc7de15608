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
		{3, "3"},                        // an integer amplification: no ".00"
		{2.9945292354168833, "2.99"},    // A_fail
		{0.24845253828189098, "0.25"},   // ρ, rounded
		{49.68421052631579, "49.7"},     // λ
		{199.97465459557807, "200"},     // C
		{8443, "8443"},                  // a count
		{-0.42721288515406164, "-0.43"}, // a falling wait
		{0, "0"},                        // zero
		{-0.0001, "-0.0001"},            // tiny: two significant digits
		{math.NaN(), unknown},           // unknown
		{math.Inf(1), "∞"},              // infinite
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
		{analysis.Num(67.33), "s", "67.3 s"},      // a recovery time
		{analysis.Num(300), "s", "5 min 00 s"},    // a long one
		{analysis.Num(49.7), "1/s", "49.7/s"},     // a rate
		{analysis.Num(-0.25), "s/s", "-0.25 s/s"}, // a slope
		{analysis.Num(1.17), "", "1.17"},          // a ratio
		{nil, "s", unknown},                       // unknown
	} {
		if got := withUnit(tc.p, tc.unit); got != tc.want {
			t.Errorf("withUnit(%v, %q) = %q, want %q", analysis.Value(tc.p), tc.unit, got, tc.want)
		}
	}
}
