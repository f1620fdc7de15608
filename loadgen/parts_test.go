package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

func TestPartsSplits(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		calls func(p *parts)
		want  string // "part@s …" after the calls
	}{
		{"in order", func(p *parts) { p.splitAt(0, 0, "a"); p.splitAt(0, 5*s, "b"); p.splitAt(0, 8*s, "c") }, "a@0 b@5 c@8"},
		// A later call moves an end that has not come: the split after it goes.
		{"a part's end moved later", func(p *parts) {
			p.splitAt(0, 0, "a")
			p.splitAt(0, 5*s, "b")
			p.splitAt(0, 8*s, "c")
			p.splitAt(6*s, 6*s, "b")
			p.splitAt(6*s, 12*s, "c")
		}, "a@0 b@5 c@12"},
		// The past is never rewritten: a split before now starts now.
		{"a split in the past starts now", func(p *parts) { p.splitAt(0, 0, "a"); p.splitAt(7*s, 3*s, "b") }, "a@0 b@7"},
		{"the same moment replaced", func(p *parts) { p.splitAt(0, 0, "a"); p.splitAt(0, 4*s, "b"); p.splitAt(0, 4*s, "c") }, "a@0 c@4"},
		{"a split into the part under way adds none", func(p *parts) { p.splitAt(0, 0, "a"); p.splitAt(0, 4*s, "a") }, "a@0"},
		{"at most MaxParts parts", func(p *parts) {
			for i := range MaxParts + 2 {
				p.splitAt(0, time.Duration(i)*s, fmt.Sprint(i))
			}
		}, "0@0 1@1 2@2 3@3 4@4 5@5 6@6 7@7"},
		{"at most MaxSplits splits", func(p *parts) {
			for i := range MaxSplits + 3 {
				p.splitAt(0, time.Duration(i)*s, []string{"a", "b"}[i%2])
			}
		}, func() string {
			out := ""
			for i := range MaxSplits {
				out += fmt.Sprintf(" %s@%d", []string{"a", "b"}[i%2], i)
			}
			return out[1:]
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p parts
			tc.calls(&p)
			got := ""
			for _, sp := range p.splits {
				got += fmt.Sprintf(" %s@%g", p.names[sp.part], sp.at.Seconds())
			}
			if len(got) > 0 {
				got = got[1:]
			}
			if got != tc.want {
				t.Errorf("splits %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPartsRecord(t *testing.T) {
	// Attempts count in the part they were sent in, whenever they end; one
	// sent before the first split in none.
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var p parts
	p.splitAt(0, ms(100), "warmup")
	p.splitAt(0, ms(2000), "spike")
	p.splitAt(0, ms(3000), "observe")
	p.record(ms(50), ms(10), true) // before any part
	for i := 1; i <= 100; i++ {
		p.record(ms(100+i), ms(i), i%10 != 0) // 1 … 100 ms; every tenth failed
	}
	p.record(ms(1999), ms(1500), false) // sent in the warmup, ended in the spike
	p.record(ms(2500), ms(400), true)
	got := p.latencies()
	if len(got) != 3 || got[0].Part != "warmup" || got[1].Part != "spike" || got[2].Part != "observe" {
		t.Fatalf("parts %+v, want warmup, spike, observe", got)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.01*want }
	w := got[0]
	if w.All.Count != 101 || !near(w.All.P50, 0.051) || !near(w.All.P95, 0.096) || !near(w.All.P99, 0.100) {
		t.Errorf("warmup %+v, want 101 attempts, P50 51 ms, P95 96 ms, P99 100 ms (± 1 %%)", w.All)
	}
	if w.OK.Count != 90 || !near(w.OK.P50, 0.049) || !near(w.OK.P99, 0.098) {
		t.Errorf("warmup's successes %+v, want 90, P50 49 ms, P99 98 ms (± 1 %%)", w.OK)
	}
	if s := got[1]; s.All != (Percentiles{Count: 1, P50: 0.4, P95: 0.4, P99: 0.4}) || s.OK.Count != 1 {
		t.Errorf("spike %+v, want one attempt of 400 ms", s)
	}
	if o := got[2]; o.All != (Percentiles{}) || o.OK != (Percentiles{}) {
		t.Errorf("observe %+v, want no attempts", o)
	}
}

func TestHistMid(t *testing.T) {
	// mid is the middle of v's counter: the lowest and highest values
	// counted with v are width − 1 apart, the value below the lowest is not.
	h := newHist()
	for _, v := range []int64{1, 100, 255, 256, 257, 511, 512, 1000, 12345, 400_000, 999_999, 3_600_000_000} {
		h.h.Reset()
		_ = h.h.RecordValue(v)
		top := h.h.ValueAtQuantile(50)
		m := h.mid(top)
		lo := int64(2*m) - top
		if !h.h.ValuesAreEquivalent(lo, top) || h.h.ValuesAreEquivalent(lo-1, top) || !h.h.ValuesAreEquivalent(v, top) {
			t.Errorf("v %d: highest %d, mid %g: lowest %d is not the counter's lowest", v, top, m, lo)
		}
	}
}

func TestRound3(t *testing.T) {
	for _, c := range [][2]float64{{0.0123456, 0.0123}, {1.23456, 1.23}, {0.000999, 0.000999}, {12.349, 12.3}, {0.0995, 0.0995}, {0, 0}} {
		if got := round3(c[0]); math.Abs(got-c[1]) > 1e-12 {
			t.Errorf("round3(%g) = %g, want %g", c[0], got, c[1])
		}
	}
}

func TestDriverPartLatencies(t *testing.T) {
	// 20 first attempts a second for 4 s: answered in 10 ms before 2 s, in
	// 200 ms after, and every fifth sent after 2 s never answered (a
	// timeout at 1 s, seen 40 ms late). The parts split at 0, 2 s and 3 s
	// hold the attempts sent in them, the timeouts at the 1 s timeout among
	// all and not among the successes; a part named for after the load has
	// no attempts.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var n atomic.Int64 // attempts answer on goroutines of their own
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
			if time.Since(start) < 2*time.Second {
				time.Sleep(10 * time.Millisecond)
				return status(200)
			}
			if n.Add(1)%5 == 0 { // never answered; the client's timer fires 40 ms late
				<-r.Context().Done()
				time.Sleep(40 * time.Millisecond)
				return nil, r.Context().Err()
			}
			time.Sleep(200 * time.Millisecond)
			return status(200)
		})
		d := newBubbleDriver(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(4*time.Second, 20)},
			Arrivals: vocab.Uniform, Timeout: time.Second, Transport: rt})
		if d.PartLatencies() != nil {
			t.Error("part latencies before any split")
		}
		d.SplitAt(0, "warmup")
		d.SplitAt(2*time.Second, "spike")
		d.SplitAt(3*time.Second, "observe")
		d.SplitAt(10*time.Second, "after")
		if err := d.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		tot := checkAccounting(t, d)
		got := d.PartLatencies()
		want := []PartLatency{
			{"warmup", Percentiles{40, 0.01, 0.01, 0.01}, Percentiles{40, 0.01, 0.01, 0.01}},
			{"spike", Percentiles{20, 0.2, 1, 1}, Percentiles{16, 0.2, 0.2, 0.2}},
			{"observe", Percentiles{20, 0.2, 1, 1}, Percentiles{16, 0.2, 0.2, 0.2}},
			{"after", Percentiles{}, Percentiles{}},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("part latencies\n %v, want\n %v", got, want)
		}
		if l := tot.Latency; l.Max < 1.03 {
			t.Errorf("the attempts' latency %+v: want the timeouts as late as they were seen", l)
		}
		var sum int64
		for _, p := range got {
			sum += p.All.Count
		}
		if sum != tot.Sent {
			t.Errorf("the parts hold %d first attempts, %d were sent", sum, tot.Sent)
		}
	})
}

func TestDriverPartLatenciesLeaveOutTheCut(t *testing.T) {
	// The run's end cancels attempts in flight: their latency is the
	// harness's, not the service's, and counts in no part.
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rt := newFakeRT(func(r *http.Request) (*http.Response, error) {
			if time.Since(start) < time.Second {
				time.Sleep(10 * time.Millisecond)
				return status(200)
			}
			return hang(r)
		})
		d := newBubbleDriver(t, Config{Request: Request{URL: "http://127.0.0.1:9/"}, Stages: []Stage{Constant(4*time.Second, 10)},
			Arrivals: vocab.Uniform, Timeout: 10 * time.Second, Transport: rt})
		d.SplitAt(0, "warmup")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := d.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Run: %v, want the deadline", err)
		}
		tot := d.Totals()
		got := d.PartLatencies()
		if tot.Sent < 20 || len(got) != 1 || got[0].All != (Percentiles{10, 0.01, 0.01, 0.01}) {
			t.Errorf("%d sent; parts %+v, want the 10 answered in the first second only", tot.Sent, got)
		}
	})
}
