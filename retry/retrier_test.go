package retry

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/trigger-test/trigger/vocab"
)

func ptr[T any](v T) *T { return &v }

// event is a pending attempt completion in the virtual-time simulation.
type event struct {
	at      time.Duration
	attempt int
	started time.Duration
	prev    time.Duration
}

type eventHeap []event

func (h eventHeap) Len() int           { return len(h) }
func (h eventHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h eventHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)        { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// simulateAllFail drives a Retrier in virtual time: first attempts at a
// constant rate for dur, every attempt fails with outcome after timeout, and
// retries are sent after the decided delay. It returns first attempts and
// all attempts, and checks the trailing-window budget at every grant.
func simulateAllFail(t interface{ Fatalf(string, ...any) }, p Policy, rate float64, dur, timeout time.Duration, outcome vocab.Outcome) (firsts, attempts int) {
	r := NewRetrier(p, rand.New(rand.NewPCG(3, 4)))
	var h eventHeap
	var firstTimes, retryTimes []time.Duration
	gap := time.Duration(float64(time.Second) / rate)
	next := time.Duration(0)
	for {
		if next < dur && (h.Len() == 0 || next <= h[0].at) {
			r.FirstAttempt(next)
			firstTimes = append(firstTimes, next)
			firsts++
			attempts++
			heap.Push(&h, event{at: next + timeout, attempt: 1, started: next})
			next += gap
			continue
		}
		if h.Len() == 0 {
			break
		}
		e := heap.Pop(&h).(event)
		d := r.Failed(e.at, Failure{Attempt: e.attempt, Outcome: outcome, Started: e.started, PrevDelay: e.prev})
		if !d.Retry {
			continue
		}
		if p.Budget != nil {
			retryTimes = append(retryTimes, e.at)
			checkBudget(t, *p.Budget, r.p.BudgetWindow, firstTimes, retryTimes)
		}
		attempts++
		heap.Push(&h, event{at: e.at + d.Delay + timeout, attempt: e.attempt + 1, started: e.started, prev: d.Delay})
	}
	return firsts, attempts
}

// checkBudget asserts the budget rule at the last granted retry: retries in
// the trailing window (t − W, t] are at most β × first attempts in it.
func checkBudget(t interface{ Fatalf(string, ...any) }, beta float64, w time.Duration, firsts, retries []time.Duration) {
	now := retries[len(retries)-1]
	count := func(ts []time.Duration) (n float64) {
		for i := len(ts) - 1; i >= 0 && ts[i] > now-w; i-- {
			if ts[i] <= now {
				n++
			}
		}
		return n
	}
	if r, f := count(retries), count(firsts); r > beta*f {
		t.Fatalf("budget exceeded at %v: %v retries > %v × %v first attempts", now, r, beta, f)
	}
}

func TestRetrierAmplificationCap(t *testing.T) {
	// Every attempt fails: attempts per first attempt is exactly R + 1
	// (docs/model.md, "Retry debt and amplification"), whatever the backoff.
	for _, R := range []int{0, 1, 2, 5} {
		for _, b := range []Backoff{{}, {Kind: vocab.BackoffExponential, Base: 50 * time.Millisecond, Max: time.Second, Jitter: vocab.JitterFull}} {
			p := Policy{MaxRetries: R, On: NewOutcomeSet(vocab.OutcomeTimeout), Backoff: b}
			f, a := simulateAllFail(t, p, 100, 100*time.Second, time.Second, vocab.OutcomeTimeout)
			if a != (R+1)*f {
				t.Errorf("R=%d backoff=%v: %d attempts for %d first attempts, want %d", R, b.Kind, a, f, (R+1)*f)
			}
		}
	}
}

func TestRetrierAmplificationBudget(t *testing.T) {
	// Every attempt fails, the cap is far away: attempts per first attempt is
	// 1 + β within 1 % (docs/model.md, "Retry debt and amplification": a
	// budget β gives A = 1 + β), and the budget holds at every grant
	// (checked inside the simulation).
	for _, beta := range []float64{0.1, 0.2, 0.5, 1} {
		for _, b := range []Backoff{{}, {Kind: vocab.BackoffConstant, Base: 200 * time.Millisecond, Jitter: vocab.JitterEqual}} {
			p := Policy{MaxRetries: 100, On: NewOutcomeSet(vocab.OutcomeTimeout), Budget: ptr(beta), BudgetWindow: 10 * time.Second, Backoff: b}
			f, a := simulateAllFail(t, p, 50, 1000*time.Second, time.Second, vocab.OutcomeTimeout)
			got := float64(a) / float64(f)
			if math.Abs(got-(1+beta)) > 0.01*(1+beta) {
				t.Errorf("β=%v backoff=%v: %.4f attempts per first attempt, want %.4f ± 1 %%", beta, b.Kind, got, 1+beta)
			}
		}
	}
}

func TestRetrierTokenBucket(t *testing.T) {
	// With every attempt timing out and nothing refunding, the bucket allows
	// exactly ⌊Capacity / TimeoutCost⌋ retries over the whole run.
	tb := &TokenBucket{Capacity: 500, RetryCost: 5, TimeoutCost: 10, SuccessRefund: 1}
	p := Policy{MaxRetries: 3, On: NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome5xx), TokenBucket: tb}
	f, a := simulateAllFail(t, p, 100, 60*time.Second, time.Second, vocab.OutcomeTimeout)
	if got := a - f; got != 50 {
		t.Errorf("%d retries, want 50", got)
	}
	// Errors cost RetryCost: 100 retries.
	f, a = simulateAllFail(t, p, 100, 60*time.Second, time.Second, vocab.Outcome5xx)
	if got := a - f; got != 100 {
		t.Errorf("%d retries after 5xx, want 100", got)
	}
	// Successes refund up to the capacity, never beyond.
	r := NewRetrier(p, nil)
	for i := 0; i < 3; i++ {
		if d := r.Failed(0, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}); !d.Retry {
			t.Fatalf("retry %d refused: %s", i, d.Reason)
		}
	}
	for i := 0; i < 1000; i++ {
		r.Succeeded(0)
	}
	if got := r.Tokens(); got != 500 {
		t.Errorf("tokens after refunds %v, want 500", got)
	}
}

func TestRetrierBudgetNeverExceeded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		beta := rapid.Float64Range(0, 2).Draw(t, "beta")
		w := time.Duration(rapid.IntRange(1, 5000).Draw(t, "window_ms")) * time.Millisecond
		r := NewRetrier(Policy{MaxRetries: 1000, On: NewOutcomeSet(vocab.OutcomeTimeout), Budget: &beta, BudgetWindow: w}, nil)
		var firsts, retries []time.Duration
		now := time.Duration(0)
		n := rapid.IntRange(1, 400).Draw(t, "events")
		for i := 0; i < n; i++ {
			now += time.Duration(rapid.IntRange(0, 200).Draw(t, "gap_ms")) * time.Millisecond
			if rapid.Bool().Draw(t, "first") {
				r.FirstAttempt(now)
				firsts = append(firsts, now)
				continue
			}
			if d := r.Failed(now, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}); d.Retry {
				retries = append(retries, now)
				checkBudget(t, beta, w, firsts, retries)
			} else if d.Reason != "budget" {
				t.Fatalf("refused for %q", d.Reason)
			}
		}
	})
}

// drawBackoff draws a backoff of any kind and jitter, base up to 1 s and
// max up to 30 s (0: the default).
func drawBackoff(t *rapid.T) Backoff {
	return Backoff{
		Kind:   vocab.BackoffKind(rapid.IntRange(0, 2).Draw(t, "kind")),
		Base:   time.Duration(rapid.Int64Range(0, int64(time.Second)).Draw(t, "base")),
		Max:    time.Duration(rapid.Int64Range(0, int64(30*time.Second)).Draw(t, "max")),
		Jitter: vocab.Jitter(rapid.IntRange(0, 3).Draw(t, "jitter")),
	}
}

func TestBackoffBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := drawBackoff(t)
		n := rapid.IntRange(1, 80).Draw(t, "retry")
		prev := time.Duration(rapid.Int64Range(0, int64(10*time.Second)).Draw(t, "prev"))
		// The nominal delay, from the definitions.
		cap := b.Max
		if cap == 0 {
			cap = vocab.DefaultBackoffMax
		}
		var d time.Duration
		switch b.Kind {
		case vocab.BackoffConstant:
			d = b.Base
		case vocab.BackoffExponential:
			d = time.Duration(min(float64(b.Base)*math.Pow(2, float64(n-1)), float64(cap)))
		}
		var lo, hi time.Duration
		switch {
		case b.Kind == vocab.BackoffNone:
			lo, hi = 0, 0
		case b.Jitter == vocab.JitterNone:
			lo, hi = d, d
		case b.Jitter == vocab.JitterFull:
			lo, hi = 0, d
		case b.Jitter == vocab.JitterEqual:
			lo, hi = d/2, d
		case b.Jitter == vocab.JitterDecorrelated:
			hi = min(3*max(prev, b.Base), cap)
			lo = min(b.Base, hi)
		}
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		for i := 0; i < 20; i++ {
			got := b.Delay(n, prev, rng)
			if got < lo || got > hi {
				t.Fatalf("%+v retry %d prev %v: delay %v outside [%v, %v]", b, n, prev, got, lo, hi)
			}
		}
	})
}

// A zero Max caps exponential and decorrelated delays at the scenario's
// documented default of client.retry.backoff.max, 10 s.
func TestBackoffDefaultMax(t *testing.T) {
	if vocab.DefaultBackoffMax != 10*time.Second {
		t.Fatalf("DefaultBackoffMax = %v, want the documented 10s", vocab.DefaultBackoffMax)
	}
	exp := Backoff{Kind: vocab.BackoffExponential, Base: time.Second}
	if got := exp.Nominal(30); got != 10*time.Second {
		t.Errorf("exponential Nominal(30) with Max 0 = %v, want 10s", got)
	}
	dec := Backoff{Kind: vocab.BackoffExponential, Base: time.Second, Jitter: vocab.JitterDecorrelated}
	if _, hi := dec.Bounds(5, time.Minute); hi != 10*time.Second {
		t.Errorf("decorrelated upper bound with Max 0 = %v, want 10s", hi)
	}
}

func TestRetryAfterWins(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := drawBackoff(t)
		ra := time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "retry_after"))
		o := rapid.SampledFrom([]vocab.Outcome{vocab.Outcome429, vocab.Outcome503, vocab.Outcome5xx, vocab.OutcomeTimeout}).Draw(t, "outcome")
		honour := rapid.Bool().Draw(t, "honour")
		r := NewRetrier(Policy{MaxRetries: 3, On: NewOutcomeSet(vocab.Outcome429, vocab.Outcome503, vocab.Outcome5xx, vocab.OutcomeTimeout), Backoff: b, RetryAfter: honour}, nil)
		d := r.Failed(0, Failure{Attempt: 1, Outcome: o, RetryAfter: ra})
		if !d.Retry {
			t.Fatalf("refused: %s", d.Reason)
		}
		uses := honour && (o == vocab.Outcome429 || o == vocab.Outcome503)
		if uses && d.Delay != ra {
			t.Fatalf("%v with Retry-After %v: delay %v", o, ra, d.Delay)
		}
		if lo, hi := b.Bounds(1, 0); !uses && (d.Delay < lo || d.Delay > hi) {
			t.Fatalf("%v: delay %v outside backoff [%v, %v]", o, d.Delay, lo, hi)
		}
	})
}

func TestRetryNeverOutlivesDeadline(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		deadline := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(10*time.Second)).Draw(t, "deadline"))
		p := Policy{MaxRetries: 10, On: NewOutcomeSet(vocab.Outcome503, vocab.OutcomeTimeout), RetryAfter: true, Deadline: deadline,
			Backoff: Backoff{Kind: vocab.BackoffExponential, Base: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: vocab.JitterFull}}
		r := NewRetrier(p, nil)
		started := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "started"))
		now := started + time.Duration(rapid.Int64Range(0, int64(12*time.Second)).Draw(t, "elapsed"))
		ra := time.Duration(rapid.Int64Range(0, int64(5*time.Second)).Draw(t, "retry_after"))
		d := r.Failed(now, Failure{Attempt: rapid.IntRange(1, 10).Draw(t, "attempt"), Outcome: vocab.Outcome503, RetryAfter: ra, Started: started})
		if d.Retry && now+d.Delay+MinRetryRemaining > started+deadline {
			t.Fatalf("retry at %v outlives the deadline %v", now+d.Delay, started+deadline)
		}
		if !d.Retry && d.Reason != "deadline" {
			t.Fatalf("refused for %q", d.Reason)
		}
	})
}

func TestRetrierReasons(t *testing.T) {
	on := NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome5xx)
	tests := []struct {
		name string
		p    Policy
		f    Failure
		want string
	}{
		// A class not in On is never retried.
		{"class", Policy{MaxRetries: 2, On: on}, Failure{Attempt: 1, Outcome: vocab.Outcome429}, "class"},
		// Attempt R+1 failing is the end: R retries were sent.
		{"cap", Policy{MaxRetries: 2, On: on}, Failure{Attempt: 3, Outcome: vocab.OutcomeTimeout}, "cap"},
		// R = 0 never retries.
		{"no retries", Policy{On: on}, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}, "cap"},
		// Attempt R may still retry.
		{"last retry", Policy{MaxRetries: 2, On: on}, Failure{Attempt: 2, Outcome: vocab.Outcome5xx}, "retry"},
		// A budget with no first attempts in the window refuses.
		{"budget", Policy{MaxRetries: 2, On: on, Budget: ptr(0.5)}, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}, "budget"},
		// An empty token bucket refuses.
		{"tokens", Policy{MaxRetries: 2, On: on, TokenBucket: &TokenBucket{Capacity: 4, TimeoutCost: 5}}, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}, "tokens"},
		// A backoff that ends past the deadline refuses.
		{"deadline", Policy{MaxRetries: 2, On: on, Deadline: time.Second, Backoff: Backoff{Kind: vocab.BackoffConstant, Base: 2 * time.Second}}, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout}, "deadline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewRetrier(tc.p, nil).Failed(0, tc.f)
			if d.Reason != tc.want || d.Retry != (tc.want == "retry") {
				t.Errorf("got %+v, want reason %q", d, tc.want)
			}
		})
	}
}

// An outcome set holds each class once, names them in vocab's order, and
// holds no value beyond the classes.
func TestOutcomeSet(t *testing.T) {
	s := NewOutcomeSet(vocab.Outcome503, vocab.OutcomeTimeout, vocab.Outcome503)
	if !s.Has(vocab.OutcomeTimeout) || !s.Has(vocab.Outcome503) || s.Has(vocab.OutcomeOK) || s.String() != "timeout,503" {
		t.Errorf("NewOutcomeSet = %v (%v)", s, uint16(s))
	}
	if NewOutcomeSet(vocab.NumOutcomes) != 0 || s.Has(vocab.NumOutcomes) {
		t.Error("a value beyond the classes is in a set")
	}
}

// A Retry-After longer than RetryAfterMax (default one minute) is cut to it:
// a service asking for a day must not keep the run's requests pending.
func TestRetryAfterCapped(t *testing.T) {
	for _, tc := range []struct {
		max, want time.Duration
	}{
		{0, DefaultRetryAfterMax},
		{5 * time.Second, 5 * time.Second},
	} {
		r := NewRetrier(Policy{MaxRetries: 1, On: NewOutcomeSet(vocab.Outcome503), RetryAfter: true, RetryAfterMax: tc.max}, nil)
		d := r.Failed(0, Failure{Attempt: 1, Outcome: vocab.Outcome503, RetryAfter: 24 * time.Hour})
		if !d.Retry || d.Delay != tc.want {
			t.Errorf("RetryAfterMax %v: %+v, want a retry after %v", tc.max, d, tc.want)
		}
	}
}

func BenchmarkRetrierFailed(b *testing.B) {
	p := Policy{MaxRetries: 3, On: NewOutcomeSet(vocab.OutcomeTimeout), Budget: ptr(0.2),
		TokenBucket: &TokenBucket{Capacity: 500, RetryCost: 5, TimeoutCost: 10, SuccessRefund: 1},
		Backoff:     Backoff{Kind: vocab.BackoffExponential, Base: 50 * time.Millisecond, Max: time.Second, Jitter: vocab.JitterFull}}
	r := NewRetrier(p, nil)
	now := time.Duration(0)
	for b.Loop() {
		now += 100 * time.Microsecond
		r.FirstAttempt(now)
		r.Failed(now, Failure{Attempt: 1, Outcome: vocab.OutcomeTimeout, PrevDelay: 50 * time.Millisecond})
		r.Succeeded(now)
	}
}
