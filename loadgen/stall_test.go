package loadgen

import (
	"math"
	"testing"
	"time"
)

// A gap of 2.5 s between heartbeats (the process stopped from 0.9 s to
// 3.4 s) shows in the seconds it spans as Stalled, to the millisecond,
// and only there; gaps of a few beats missed are no stall.
func TestStallsShowInTheirSeconds(t *testing.T) {
	r := newRecorder(func() (int64, int64) { return 0, 0 }, 1)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for now := 0; now <= 900; now += 20 {
		r.beat(ms(now))
	}
	// The first event after the stop: an attempt timing out at 3.4 s.
	r.add(ms(3400), func(s *Second) { s.FirstOutcomes[1]++ })
	for now := 3420; now <= 5000; now += 60 { // three beats missed at a time
		r.beat(ms(now))
	}
	r.beat(ms(5000))
	want := []float64{0.1, 1, 1, 0.4, 0}
	secs := r.timeline()
	if len(secs) < len(want) {
		t.Fatalf("%d seconds sealed, want %d", len(secs), len(want))
	}
	for i, w := range want {
		if math.Abs(secs[i].Stalled-w) > 1e-9 {
			t.Errorf("second %d: stalled %.3f s, want %.3f s", i, secs[i].Stalled, w)
		}
	}
	if len(r.stalls) != 0 {
		t.Errorf("%d stall intervals kept after their seconds were sealed", len(r.stalls))
	}
}
