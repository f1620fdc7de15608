package staging

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"
)

func TestTallyInterpolation(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// 0 at 0 s, 10 at 1 s, 10 at 2 s, 40 at 2.5 s.
	rs := []Reading{{at(0), 0}, {at(1000), 10}, {at(2000), 10}, {at(2500), 40}}
	nan := math.NaN()
	cases := []struct {
		name     string
		readings []Reading
		from, to int // ms after t0
		want     float64
	}{
		{"on readings", rs, 0, 1000, 10},
		{"inside one interval", rs, 250, 750, 5},
		{"across intervals", rs, 500, 2250, 5 + 0 + 15},
		{"flat interval", rs, 1200, 1900, 0},
		{"whole span", rs, 0, 2500, 40},
		{"empty window", rs, 700, 700, 0},
		{"backwards", rs, 1000, 0, -10},
		{"before the first reading", rs, -1, 1000, nan},
		{"after the last reading", rs, 0, 2501, nan},
		{"no readings", nil, 0, 0, nan},
		{"one reading, on it", rs[:1], 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := &Tally{readings: c.readings}
			got := tl.Between(at(c.from), at(c.to))
			if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-9) {
				t.Errorf("Between(%d ms, %d ms) = %g, want %g", c.from, c.to, got, c.want)
			}
		})
	}
}

// A live Tally reads at start and on Sample; it stops reading at its cap.
// The period is an hour, so only the explicit readings happen.
func TestTallyLive(t *testing.T) {
	var n atomic.Int64
	tl, err := StartTally(context.Background(), TallyConfig{Read: func() float64 { return float64(n.Load()) }, Period: time.Hour, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Stop()
	start := time.Now()
	n.Store(7)
	if !tl.Sample() {
		t.Fatal("Sample refused under the cap")
	}
	end := time.Now()
	n.Store(9)
	if !tl.Sample() || tl.Full() != true {
		t.Fatal("the third reading should be taken and fill the tally")
	}
	if tl.Sample() {
		t.Error("Sample read past the cap")
	}
	rs := tl.Readings()
	if len(rs) != 3 || rs[0].Value != 0 || rs[1].Value != 7 || rs[2].Value != 9 {
		t.Fatalf("readings %+v; want 0, 7, 9", rs)
	}
	if got := tl.Between(rs[0].At, rs[2].At); got != 9 {
		t.Errorf("Between(first, last) = %g, want 9", got)
	}
	if got := tl.Between(start, end); !(got >= 0 && got <= 9) {
		t.Errorf("Between(start, end) = %g, want within [0, 9]", got)
	}
	tl.Stop() // idempotent with the deferred one
}

func TestTallyConfigErrors(t *testing.T) {
	read := func() float64 { return 0 }
	cases := []struct {
		name string
		cfg  TallyConfig
	}{
		{"no Read", TallyConfig{Period: time.Second}},
		{"no Period", TallyConfig{Read: read}},
		{"negative Period", TallyConfig{Read: read, Period: -time.Second}},
		{"Max 1", TallyConfig{Read: read, Period: time.Second, Max: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if tl, err := StartTally(context.Background(), c.cfg); err == nil {
				tl.Stop()
				t.Fatal("started; want an error")
			}
		})
	}
}
