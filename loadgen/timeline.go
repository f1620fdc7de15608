package loadgen

import (
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/trigger-test/trigger/vocab"
)

// MaxTracked is the highest attempt number counted on its own in
// Second.AttemptsByNumber; the last bucket counts it and every later one.
const MaxTracked = 8

// Summary is a latency-like distribution over one second or one run, in
// seconds. Percentiles come from an HDR histogram with 2 significant digits
// (values within 1 %) between 1 µs and 1 h (values outside are clamped).
type Summary struct {
	Count int64   // number of values
	Mean  float64 // seconds
	Min   float64 // seconds
	P10   float64 // 10th percentile, seconds (P10..P90 is the spread: a nearly fixed latency has P10 ≈ P90)
	P50   float64 // seconds
	P90   float64 // seconds
	P99   float64 // seconds
	Max   float64 // seconds
}

// Second is what happened in one second of a run. Events are counted in the
// second they happen: a send when it is sent, an outcome when the attempt
// completes, a logical result when the request ends.
type Second struct {
	Index   int   // seconds since Run started: this second is [Index, Index+1) s
	Planned int64 // first attempts whose planned time was reached
	Sent    int64 // first attempts sent
	Dropped int64 // first attempts planned but dropped: later than Config.MaxLag
	Refused int64 // first attempts refused because MaxInFlight attempts were in flight
	Retries int64 // retry attempts sent
	// RetryRefused counts retries granted by the policy but refused because
	// MaxInFlight attempts were in flight (or the retry queue was full); their
	// logical requests fail.
	RetryRefused int64
	// AttemptsByNumber counts attempts sent by attempt number: index 1 is the
	// first attempt, index MaxTracked counts MaxTracked and above; index 0 is unused.
	AttemptsByNumber [MaxTracked + 1]int64
	FirstOutcomes    [vocab.NumOutcomes]int64 // completed first attempts by outcome
	RetryOutcomes    [vocab.NumOutcomes]int64 // completed retry attempts by outcome
	Succeeded        int64                    // logical requests that ended with a success
	Failed           int64                    // logical requests that ended without one (after all attempts allowed)
	Pending          int64                    // logical requests not yet ended, at the end of the second
	InFlight         int64                    // attempts in flight (tracers excluded), at the end of the second
	TracerSent       int64                    // tracer probes sent
	// TracerRefused counts tracers not sent because no slot was free
	// (MaxInFlight attempts and tracers in flight, or Bounds.MaxTracers
	// tracers): a tracer never waits for one.
	TracerRefused  int64
	TracerOutcomes [vocab.NumOutcomes]int64 // completed tracers by outcome
	TracerTimeouts int64                    // tracers that timed out (their wait exceeded Tracers.Timeout)
	// TracerWait is the latency of tracers the service answered (a status
	// below 500 other than 429, a success or not), seconds: the queue
	// wait. A tracer answered with a 5xx, 503 or 429, or that timed out or
	// failed, is not a wait sample: a proxy in front of the service may
	// have given up first.
	TracerWait Summary
	// TracerErrorLatency is the latency of tracers answered with a status
	// ≥ 500 (Outcome5xx, Outcome503), seconds: when it is nearly fixed (P10 ≈
	// P90) and TracerWait is empty, a layer in front of the service gives up
	// before the service answers.
	TracerErrorLatency Summary
	Lag                Summary // dispatch lag of first attempts sent: actual − planned send time, seconds
	Latency            Summary // duration of completed first and retry attempts, seconds
	// ErrorLatency is the duration of completed first and retry attempts
	// answered with a status ≥ 500 (Outcome5xx, Outcome503), seconds; a
	// subset of Latency.
	ErrorLatency Summary
	// Requests counts each request of a mix's first attempts, by the
	// request's index in Config.Mix; nil when the driver sends one request.
	Requests []RequestSecond `json:"requests,omitempty"`
	// Stalled is how long, in seconds, the driver's process did not run in
	// this second (stopped, or starved of CPU: see stall.go). Its outcomes
	// then are the driver's, not the service's.
	Stalled float64
}

// RequestSecond is what one request of the mix got in a second: its
// first attempts sent, and completed by outcome.
type RequestSecond struct {
	Sent          int64                    `json:"sent"`
	FirstOutcomes [vocab.NumOutcomes]int64 `json:"first_outcomes"`
}

// Attempts returns the attempts sent in the second (first attempts and retries).
func (s *Second) Attempts() int64 { return s.Sent + s.Retries }

// Completed returns the attempts completed in the second (all outcomes).
func (s *Second) Completed() int64 {
	var n int64
	for o := range vocab.NumOutcomes {
		n += s.FirstOutcomes[o] + s.RetryOutcomes[o]
	}
	return n
}

// Totals are the counts of a whole run and its distributions.
type Totals struct {
	Second // counts summed over the run; Index is the number of seconds; Pending and InFlight are the latest
	// FirstSent and LastSent are when the first and the last first attempt
	// were sent (since Run started); the achieved rate is
	// Sent / (LastSent − FirstSent), as vegeta computes its "rate".
	FirstSent, LastSent time.Duration
}

// AchievedRate returns first attempts sent per second over the span of
// their sends (0 with fewer than two).
func (t Totals) AchievedRate() float64 {
	if t.Sent < 2 || t.LastSent <= t.FirstSent {
		return 0
	}
	return float64(t.Sent) / (t.LastSent - t.FirstSent).Seconds()
}

// hist is an HDR histogram of durations recorded in microseconds.
type hist struct{ h *hdrhistogram.Histogram }

const histMaxMicros = int64(time.Hour / time.Microsecond)

// newHist returns a histogram of 2,944 counters (23 KiB): two significant
// digits keep the once-a-second summary and reset, done under the recorder's
// lock, in the tens of microseconds (three digits cost 8 times as much).
func newHist() hist { return hist{hdrhistogram.New(1, histMaxMicros, 2)} }

func (h hist) record(d time.Duration) {
	us := int64(d / time.Microsecond)
	us = min(max(us, 1), histMaxMicros)
	_ = h.h.RecordValue(us) // in range by construction
}

func (h hist) summary() Summary {
	if h.h.TotalCount() == 0 {
		return Summary{}
	}
	s := func(us int64) float64 { return float64(us) / 1e6 }
	lo := h.h.Min()
	// A percentile whose rank rounds to no value (P10 of fewer than 5)
	// comes back as 0 from the histogram: it is the smallest value.
	q := func(p float64) float64 { return s(max(h.h.ValueAtQuantile(p), lo)) }
	return Summary{
		Count: h.h.TotalCount(),
		Mean:  h.h.Mean() / 1e6,
		Min:   s(lo),
		P10:   q(10),
		P50:   q(50),
		P90:   q(90),
		P99:   q(99),
		Max:   s(h.h.Max()),
	}
}

// dist names the distributions a recorder keeps, each in a per-second and
// a run-long histogram.
type dist uint8

const (
	distLag         dist = iota // Second.Lag
	distLatency                 // Second.Latency
	distErrLatency              // Second.ErrorLatency
	distWait                    // Second.TracerWait
	distTracerError             // Second.TracerErrorLatency
	numDists
)

// hists is one histogram per distribution.
type hists [numDists]hist

func newHists() hists {
	var hs hists
	for i := range hs {
		hs[i] = newHist()
	}
	return hs
}

// record records d in distribution k.
func (hs *hists) record(k dist, d time.Duration) { hs[k].record(d) }

// summarize sets s's summaries from the histograms.
func (hs *hists) summarize(s *Second) {
	s.Lag = hs[distLag].summary()
	s.Latency = hs[distLatency].summary()
	s.ErrorLatency = hs[distErrLatency].summary()
	s.TracerWait = hs[distWait].summary()
	s.TracerErrorLatency = hs[distTracerError].summary()
}

// reset empties the histograms (those with values: a reset clears every counter).
func (hs *hists) reset() {
	for _, h := range hs {
		if h.h.TotalCount() > 0 {
			h.h.Reset()
		}
	}
}

// recorder accumulates the per-second timeline, the run totals and the
// cohorts. All methods are safe for concurrent use; memory is bounded by the
// number of seconds (one Second and one Cohort each) plus 2 × numDists
// histograms (a per-second one, reset when the second is sealed, and a
// run-long one per distribution).
type recorder struct {
	mu      sync.Mutex
	cur     Second
	sealed  []Second
	total   Second
	cohorts []Cohort // cohorts[i] is the cohort of second i
	// per-second and run-long histograms
	sec, run            hists
	firstSent, lastSent time.Duration
	gauges              func() (pending, inFlight int64)
	requests            int  // requests of the mix counted apart (Second.Requests); 0 for one
	frozen              bool // set by flush: the run is over, no more seconds
	// parts is the first attempts' latency by the part of the run they
	// were sent in (parts.go).
	parts parts
	// The driver's heartbeat and the stalls it showed (stall.go).
	beating  bool
	lastBeat time.Duration
	stalls   []stall
}

// newRecorder returns a recorder; with requests > 1 it counts each
// request of the mix apart.
func newRecorder(gauges func() (pending, inFlight int64), requests int) *recorder {
	r := &recorder{sec: newHists(), run: newHists(), gauges: gauges}
	if requests > 1 {
		r.requests = requests
		r.cur.Requests = make([]RequestSecond, requests)
		r.total.Requests = make([]RequestSecond, requests)
	}
	return r
}

// newSecond is an empty second of index i.
func (r *recorder) newSecond(i int) Second {
	s := Second{Index: i}
	if r.requests > 0 {
		s.Requests = make([]RequestSecond, r.requests)
	}
	return s
}

// recordLocked records d in distribution k for the second and the run.
func (r *recorder) recordLocked(k dist, d time.Duration) {
	r.sec.record(k, d)
	r.run.record(k, d)
}

// rollLocked seals every second before the one that contains now.
func (r *recorder) rollLocked(now time.Duration) {
	if r.frozen {
		return
	}
	r.noteStallLocked(now)
	idx := int(now / time.Second)
	for r.cur.Index < idx {
		r.cur.Stalled = r.stalledLocked(r.cur.Index)
		r.cur.Pending, r.cur.InFlight = r.gauges()
		r.sec.summarize(&r.cur)
		r.sealed = append(r.sealed, r.cur)
		r.sec.reset()
		r.cur = r.newSecond(r.cur.Index + 1)
	}
}

// flush seals every second up to the one that contains now, partial or
// not, and freezes the timeline: the run is over.
func (r *recorder) flush(now time.Duration) {
	r.mu.Lock()
	r.rollLocked(now)
	r.rollLocked(time.Duration(r.cur.Index+1) * time.Second)
	r.frozen = true
	r.mu.Unlock()
}

// roll seals every second before now.
func (r *recorder) roll(now time.Duration) {
	r.mu.Lock()
	r.rollLocked(now)
	r.mu.Unlock()
}

// add applies f to the current second and to the totals, at now.
func (r *recorder) add(now time.Duration, f func(s *Second)) {
	r.mu.Lock()
	r.rollLocked(now)
	f(&r.cur)
	f(&r.total)
	r.mu.Unlock()
}

// sent records an attempt sent at now (number n ≥ 1) of a logical request
// of cohort c and request req of the mix; for a first attempt planned is its planned time, the lag is
// recorded, c is ignored and the cohort of the current second is returned
// (the request's cohort); a retry returns c.
func (r *recorder) sent(now, planned time.Duration, n, c, req int) int {
	r.mu.Lock()
	r.rollLocked(now)
	for _, s := range []*Second{&r.cur, &r.total} {
		if n == 1 {
			s.Planned++
			s.Sent++
			if s.Requests != nil {
				s.Requests[req].Sent++
			}
		} else {
			s.Retries++
		}
		s.AttemptsByNumber[min(n, MaxTracked)]++
	}
	if n == 1 {
		if r.total.Sent == 1 {
			r.firstSent = now
		}
		r.lastSent = max(r.lastSent, now)
		r.recordLocked(distLag, max(now-planned, 0))
		c = r.cur.Index
		ch := r.cohortLocked(c)
		ch.First++
		ch.Open++
	}
	r.cohortLocked(c).Attempts++
	r.mu.Unlock()
	return c
}

// done records a completed attempt (number n ≥ 1) of a logical request of
// cohort c and request req of the mix and, when ended, the end of the
// request. seen is the latency a first attempt counts at in its part of
// the run (Driver.firstSeen); < 0: in none.
func (r *recorder) done(now time.Duration, c, req, n int, o vocab.Outcome, took, seen time.Duration, ended, ok bool) {
	r.mu.Lock()
	r.rollLocked(now)
	for _, s := range []*Second{&r.cur, &r.total} {
		if n == 1 {
			s.FirstOutcomes[o]++
			if s.Requests != nil {
				s.Requests[req].FirstOutcomes[o]++
			}
		} else {
			s.RetryOutcomes[o]++
		}
		if ended && ok {
			s.Succeeded++
		} else if ended {
			s.Failed++
		}
	}
	if ended {
		r.endLocked(c, ok)
	}
	r.recordLocked(distLatency, took)
	if n == 1 && seen >= 0 {
		r.parts.record(now-took, seen, o == vocab.OutcomeOK)
	}
	if serverError(o) {
		r.recordLocked(distErrLatency, took)
	}
	r.mu.Unlock()
}

// failed records the end without a success, at now, of a logical request of
// cohort c that has no attempt in flight: its retry was refused (counted in
// RetryRefused when refused is set) or the run was cancelled.
func (r *recorder) failed(now time.Duration, c int, refused bool) {
	r.mu.Lock()
	r.rollLocked(now)
	for _, s := range []*Second{&r.cur, &r.total} {
		if refused {
			s.RetryRefused++
		}
		s.Failed++
	}
	r.endLocked(c, false)
	r.mu.Unlock()
}

// tracerDone records a completed tracer; answered says whether the
// service answered it (answeredStatus): its latency is then a wait sample.
func (r *recorder) tracerDone(now time.Duration, o vocab.Outcome, took time.Duration, answered bool) {
	r.mu.Lock()
	r.rollLocked(now)
	for _, s := range []*Second{&r.cur, &r.total} {
		s.TracerOutcomes[o]++
		if o == vocab.OutcomeTimeout {
			s.TracerTimeouts++
		}
	}
	switch {
	case answered:
		r.recordLocked(distWait, took)
	case serverError(o):
		r.recordLocked(distTracerError, took)
	}
	r.mu.Unlock()
}

// timeline returns a copy of the sealed seconds.
func (r *recorder) timeline() []Second { return r.since(0) }

// since returns a copy of the sealed seconds from index n on.
func (r *recorder) since(n int) []Second {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n >= len(r.sealed) {
		return nil
	}
	return append([]Second(nil), r.sealed[max(n, 0):]...)
}

// live returns the second in progress with partial counts and summaries.
func (r *recorder) live(now time.Duration) Second {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rollLocked(now)
	s := r.cur
	s.Requests = slices.Clone(s.Requests)
	s.Stalled = r.stalledLocked(s.Index)
	s.Pending, s.InFlight = r.gauges()
	r.sec.summarize(&s)
	return s
}

// totals returns the run totals.
func (r *recorder) totals() Totals {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.total
	t.Requests = slices.Clone(t.Requests)
	t.Index = r.cur.Index
	t.Pending, t.InFlight = r.gauges()
	r.run.summarize(&t)
	return Totals{Second: t, FirstSent: r.firstSent, LastSent: r.lastSent}
}
