package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/vocab"
)

// A replan set for a later instant keeps the current schedule until then,
// and the new one from exactly that instant of the driver's clock.
func TestDriverReplanAt(t *testing.T) {
	d, err := NewDriver(Config{
		Request: Request{URL: "http://127.0.0.1:1/w"}, Transport: okRT{},
		Stages: []Stage{Constant(30*time.Second, 100)}, Arrivals: vocab.Uniform,
		Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	testwait.For(t, 5*time.Second, 5*time.Millisecond, "the driver to start", func() bool { return d.Elapsed() > 0 })
	d.ReplanAt(1500*time.Millisecond, []Stage{Constant(time.Second, 400)})
	if err := testwait.Receive(t, done, 10*time.Second, "Run to return after the replanned schedule"); err != nil {
		t.Fatal(err)
	}
	secs := d.Timeline()
	planned := []int64{secs[0].Planned, secs[1].Planned, secs[2].Planned}
	// [0, 1.5 s) at 100/s, [1.5, 2.5 s) at 400/s.
	if planned[0] != 100 || planned[1] < 245 || planned[1] > 255 || planned[2] < 195 || planned[2] > 205 {
		t.Errorf("planned per second %v, want 100, 250, 200", planned)
	}
}
