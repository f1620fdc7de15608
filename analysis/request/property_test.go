package request

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid/fluidtest"
	"github.com/trigger-test/trigger/vocab"
)

// requestPoint draws a small request-level configuration that exercises
// every path: spikes that may or may not trigger, caps (or none), backoff,
// admission bounds, deadline propagation, hidden layers, both queues, the
// three service-time laws and both arrival processes.
func requestPoint(t *rapid.T) Config {
	pods := rapid.IntRange(1, 4).Draw(t, "pods")
	podRate := rapid.Float64Range(5, 50).Draw(t, "podRate")
	c := float64(pods) * podRate
	rho := rapid.Float64Range(0.1, 0.9).Draw(t, "rho")
	cfg := Config{
		Stages:              analysis.SpikeSchedule(rho*c, rapid.Float64Range(1, 8).Draw(t, "k"), 5, rapid.Float64Range(1, 20).Draw(t, "spike"), rapid.Float64Range(5, 60).Draw(t, "observe")),
		Arrivals:            vocab.Arrivals(rapid.IntRange(0, 1).Draw(t, "arrivals")),
		Pods:                pods,
		Workers:             rapid.IntRange(1, 3).Draw(t, "workers"),
		PodRatePerS:         podRate,
		ServiceTime:         vocab.ServiceTime(rapid.IntRange(0, 2).Draw(t, "service")),
		ServiceCV:           rapid.Float64Range(0.2, 3).Draw(t, "cv"),
		Queue:               vocab.Queue(rapid.IntRange(0, 1).Draw(t, "queue")),
		TimeoutS:            rapid.Float64Range(0.2, 2).Draw(t, "timeout"),
		DeadlinePropagation: rapid.Bool().Draw(t, "deadline"),
		InnerAmplification:  rapid.Float64Range(1, 3).Draw(t, "inner"),
		SampleS:             rapid.SampledFrom([]float64{0.5, 1, 2}).Draw(t, "sample"),
		Seed:                rapid.Uint64().Draw(t, "seed"),
		StopWhenRecovered:   rapid.Bool().Draw(t, "stop"),
	}
	if rapid.Bool().Draw(t, "bounded") {
		cfg.AdmissionBoundS = rapid.Float64Range(0.05, 3).Draw(t, "bound")
	}
	if retries := rapid.IntRange(-1, 4).Draw(t, "retries"); retries >= 0 {
		cfg.Retry = capRetries(retries, rapid.SampledFrom([]float64{0, 0.05, 0.3}).Draw(t, "delay"))
	}
	return cfg
}

// Every attempt is accounted once: each arrived attempt succeeded, timed
// out or was refused; each admitted job was served within the run,
// dropped, or is still queued; each logical request succeeded, gave up or
// is still pending; and the timeline's rows add up to the totals.
func TestPropertyRequestConservation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := requestPoint(t)
		res, err := Simulate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := res.Counts
		if c.Attempts != c.Succeeded+c.TimedOut+c.Refused {
			t.Fatalf("attempts %d ≠ succeeded + timed out + refused: %+v", c.Attempts, c)
		}
		if c.FirstAttempts != c.Succeeded+c.GaveUp+c.Pending {
			t.Fatalf("requests %d ≠ succeeded + gave up + pending: %+v", c.FirstAttempts, c)
		}
		admitted := c.Attempts + c.Hidden - c.Refused - c.HiddenRefused
		if admitted != c.Served+c.Dropped+c.Queued {
			t.Fatalf("admitted %d ≠ served + dropped + queued: %+v", admitted, c)
		}
		if !cfg.DeadlinePropagation && c.Dropped != 0 || c.Abandoned > c.Served {
			t.Fatalf("drops without deadline propagation, or more abandoned than served: %+v", c)
		}
		var rows analysis.RequestCounts
		var refused, timedOut, goodput float64
		sample := cfg.SampleS
		for i, s := range res.Timeline {
			span := math.Min(sample, res.EndS-s.TS)
			if math.Abs(s.TS-float64(i)*sample) > 1e-9 || span <= 0 {
				t.Fatalf("row %d at %v s (span %v)", i, s.TS, span)
			}
			for _, a := range s.AttemptsPerS {
				rows.Attempts += int64(math.Round(a * span))
			}
			rows.FirstAttempts += int64(math.Round(s.Sent * span))
			rows.Served += int64(math.Round(s.ServedPerS * span))
			rows.GaveUp += int64(math.Round(s.Failed * span))
			refused += s.Rejected * span
			timedOut += s.Timeouts * span
			goodput += s.FirstOK * span
			if s.FirstOK > s.Sent+1e-9 || s.AbandonedPerS > s.ServedPerS+1e-9 {
				t.Fatalf("row %d: goodput above demand or abandoned above served: %+v", i, s)
			}
			if first := s.FirstOK + s.FirstTimeouts + s.FirstErrors; math.Abs(first-s.Sent) > 1e-6 || s.FirstTimeouts > s.Timeouts+1e-9 || s.FirstErrors > s.Rejected+1e-9 {
				t.Fatalf("row %d: first attempts %v answered, timed out or refused, of %v sent: %+v", i, first, s.Sent, s)
			}
		}
		if rows.Attempts != c.Attempts || rows.FirstAttempts != c.FirstAttempts || rows.Served != c.Served || rows.GaveUp != c.GaveUp ||
			math.Round(refused) != float64(c.Refused) || math.Round(timedOut) != float64(c.TimedOut) || goodput > float64(c.Succeeded)+1e-6 {
			t.Fatalf("rows %+v refused %v timed out %v goodput %v; totals %+v", rows, refused, timedOut, goodput, c)
		}
		if res.TimedOut != float64(c.TimedOut) || res.Refused != float64(c.Refused) || res.FailedRequests != float64(c.GaveUp) {
			t.Fatalf("result totals differ from counts: %+v", res)
		}
		if res.Verdict == analysis.VerdictRecovered && (c.Pending != 0 || math.IsInf(res.RecoveryS, 0) || res.RecoveryS < 0) {
			t.Fatalf("recovered with %d pending, recovery %v", c.Pending, res.RecoveryS)
		}
	})
}

// The same seed gives the same run; another seed, another run.
func TestPropertyRequestReproducible(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := requestPoint(t)
		a, err := Simulate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Simulate(context.Background(), cfg)
		if fa, fb := fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b); fa != fb {
			t.Fatalf("same seed, different runs:\n%s\n%s", fa, fb)
		}
		if cfg.Arrivals == vocab.Poisson && a.Counts.FirstAttempts > 20 {
			cfg.Seed++
			c, _ := Simulate(context.Background(), cfg)
			if fmt.Sprintf("%+v", c.Timeline) == fmt.Sprintf("%+v", a.Timeline) {
				t.Fatalf("seeds %d and %d gave the same timeline", cfg.Seed-1, cfg.Seed)
			}
		}
	})
}

// Arrivals follow the stages: uniform arrivals put exactly ⌈rate·duration⌉
// first attempts in a stage that starts on an arrival (here, every stage
// holds a whole number of them), Poisson arrivals about that many.
func TestRequestArrivalCounts(t *testing.T) {
	stages := []analysis.DemandStage{{DurationS: 10, RatePerS: 30}, {DurationS: 0, RatePerS: 1000}, {DurationS: 5, RatePerS: 0}, {DurationS: 20, RatePerS: 250}}
	for _, tc := range []struct {
		arrivals vocab.Arrivals
		tol      float64
	}{
		{vocab.Uniform, 0}, // exact
		{vocab.Poisson, 4}, // within 4σ
	} {
		res, err := Simulate(context.Background(), Config{Stages: stages, Arrivals: tc.arrivals, PodRatePerS: 1e4, TimeoutS: 1, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		perStage := func(from, to int) float64 {
			n := 0.0
			for _, s := range res.Timeline[from:to] {
				n += s.Sent
			}
			return n
		}
		for _, st := range []struct {
			from, to int
			want     float64
		}{{0, 10, 300}, {10, 15, 0}, {15, 35, 5000}} {
			got := perStage(st.from, st.to)
			if math.Abs(got-st.want) > tc.tol*math.Sqrt(st.want)+1e-9 {
				t.Errorf("%v: seconds %d–%d: %v arrivals, want %v", tc.arrivals, st.from, st.to, got, st.want)
			}
		}
	}
}

// The lognormal sampler has the configured mean and coefficient of variation.
func TestRequestServiceTimeMoments(t *testing.T) {
	for _, tc := range []struct {
		kind vocab.ServiceTime
		cv   float64
	}{
		{vocab.ServiceDeterministic, 0}, // always the mean
		{vocab.ServiceExponential, 1},   // CV 1
		{vocab.ServiceLognormal, 0.5},   // light tail
		{vocab.ServiceLognormal, 2},     // heavy tail
	} {
		r := newSim(Config{Stages: []analysis.DemandStage{{DurationS: 1, RatePerS: 1}}, PodRatePerS: 50, Workers: 2, ServiceTime: tc.kind, ServiceCV: tc.cv, TimeoutS: 1, Seed: 11})
		var sum, sq float64
		const n = 400000
		for range n {
			s := r.svc.draw()
			sum += s
			sq += s * s
		}
		mean := sum / n
		cv := math.Sqrt(sq/n-mean*mean) / mean
		if !fluidtest.Near(mean, 0.04, 0.02) || math.Abs(cv-tc.cv) > 0.05*math.Max(tc.cv, 1) {
			t.Errorf("%v cv %v: mean %.5f s (want 0.04), cv %.3f", tc.kind, tc.cv, mean, cv)
		}
	}
}

// The retry heap pops its minimum at every step, interleaved with pushes,
// and the timeout ring pops in push order while it grows.
func TestPropertyRequestQueues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h retryHeap
		var ring timeoutRing
		var shadow []float64 // the heap's contents, sorted
		times := rapid.SliceOfN(rapid.Float64Range(0, 100), 1, 3000).Draw(t, "times")
		popEvery := rapid.IntRange(2, 5).Draw(t, "popEvery")
		next := 0
		for i, at := range times {
			h.push(pending{at: at})
			shadow = append(shadow, at)
			slices.Sort(shadow)
			ring.push(pending{at: float64(i)})
			if i%popEvery == popEvery-1 {
				if p := h.pop(); p.at != shadow[0] {
					t.Fatalf("heap popped %v, minimum is %v", p.at, shadow[0])
				}
				shadow = shadow[1:]
				if q := ring.pop(); q.at != float64(next) {
					t.Fatalf("ring popped %v, want %v", q.at, next)
				}
				next++
			}
		}
		for _, want := range shadow {
			if p := h.pop(); p.at != want {
				t.Fatalf("heap popped %v, want %v", p.at, want)
			}
		}
		if len(h.h) != 0 || ring.size != len(times)-next || ring.peek() != float64(next) {
			t.Fatalf("left %d in the heap, %d in the ring (head %v)", len(h.h), ring.size, ring.peek())
		}
	})
}
