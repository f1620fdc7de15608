package fleet

import (
	"fmt"
	"math"
	"time"

	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// A report is checked before any of it is taken (checkReport): an agent's
// seconds go into the run's timeline and verdict, so a report that does
// not add up makes its agent lost, and none of it is data. What a driver's
// recorder guarantees (loadgen/timeline.go) is what is checked:
//
//   - every count is non-negative and below maxCount; every duration
//     (latencies, waits, lags, stalls) is finite, non-negative and within
//     the run's span (max_duration and the silence);
//   - a second's attempts by number add up to its first attempts and
//     retries, its mix's requests to its first attempts;
//   - over the agent's seconds so far, completed attempts never exceed the
//     attempts sent, ended logical requests never exceed those started,
//     completed tracers never exceed those sent;
//   - a cohort's successes and open requests are within its first attempts,
//     which are within its attempts;
//   - indexes follow on from what the coordinator holds, and no second
//     is reported before the run's clock could have reached it;
//   - the start instant the agent reports lies within the run and does not
//     change.

// maxCount bounds any one count of one second of one agent (2⁴⁰: a
// trillion attempts a second is no measurement).
const maxCount = 1 << 40

// maxMix bounds the requests of a mix a second counts.
const maxMix = 4096

// clockSlack is how far an agent's clock may run ahead of the
// coordinator's before its seconds are impossible: the agents start at a
// wall-clock instant, which other machines' clocks read their own way.
const clockSlack = 2 * time.Second

// running is what has been taken of an agent's seconds, summed: the
// checks across seconds.
type running struct {
	attempts, completed   int64 // attempts sent (first and retries), completed (any outcome)
	started, ended        int64 // logical requests started (first attempts), ended
	tracers, tracersEnded int64
}

func (r *running) add(s loadgen.Second) {
	r.attempts += s.Sent + s.Retries
	r.completed += s.Completed()
	r.started += s.Sent
	r.ended += s.Succeeded + s.Failed
	r.tracers += s.TracerSent
	for _, n := range s.TracerOutcomes {
		r.tracersEnded += n
	}
}

// span is how long any duration of the run can be: its max_duration and
// the silence after which everything stops.
func (c *Coordinator) span() time.Duration { return c.cfg.MaxDuration + Silence }

// checkReport says why rep, from agent a, does not add up; "" when it
// does. The caller holds mu.
func (c *Coordinator) checkReport(a *agentState, rep Report, now time.Time) string {
	span := c.span()
	switch {
	case len(rep.Seconds) > MaxReportSeconds:
		return fmt.Sprintf("%d seconds in one report, at most %d", len(rep.Seconds), MaxReportSeconds)
	case rep.From < 0 || rep.From > len(a.rows):
		return fmt.Sprintf("seconds from %d, but %d are held", rep.From, len(a.rows))
	case rep.CohortsFrom < 0 || rep.CohortsFrom > len(a.cohorts):
		return fmt.Sprintf("cohorts from %d, but %d are held", rep.CohortsFrom, len(a.cohorts))
	}
	// The seconds the run's clock can have reached.
	limit := int(span/time.Second) + 2
	if c.start.IsZero() {
		limit = 0
	} else {
		limit = min(limit, int(max(now.Sub(c.start)+clockSlack, 0)/time.Second)+1)
	}
	if rep.StartedUnixNS != 0 {
		switch {
		case c.start.IsZero():
			return "a start before the run started"
		case a.startedUnixNS != 0 && rep.StartedUnixNS != a.startedUnixNS:
			return "its start instant changed"
		}
		lo, hi := c.start.UnixNano()-int64(clockSlack), c.start.UnixNano()+int64(span)
		if rep.StartedUnixNS < lo || rep.StartedUnixNS > hi {
			return "a start instant outside the run"
		}
	} else if len(rep.Seconds) > 0 || len(rep.Cohorts) > 0 {
		return "seconds without a start instant"
	}
	if n := rep.From + len(rep.Seconds); n > limit {
		return fmt.Sprintf("%d seconds, but the run's clock is at most at %d", n, limit)
	}
	if n := rep.CohortsFrom + len(rep.Cohorts); n > limit {
		return fmt.Sprintf("%d cohorts, but the run's clock is at most at %d", n, limit)
	}
	sums := a.sums
	for k, s := range rep.Seconds {
		if s.Index != rep.From+k {
			return fmt.Sprintf("second %d at position %d", s.Index, rep.From+k)
		}
		if why := checkSecond(s, span); why != "" {
			return fmt.Sprintf("second %d: %s", s.Index, why)
		}
		if s.Index < len(a.rows) {
			continue // held already; not added twice
		}
		sums.add(s)
		switch {
		case sums.completed > sums.attempts:
			return fmt.Sprintf("second %d: %d attempts completed of %d sent", s.Index, sums.completed, sums.attempts)
		case sums.ended > sums.started:
			return fmt.Sprintf("second %d: %d requests ended of %d started", s.Index, sums.ended, sums.started)
		case sums.tracersEnded > sums.tracers:
			return fmt.Sprintf("second %d: %d tracers completed of %d sent", s.Index, sums.tracersEnded, sums.tracers)
		}
	}
	for k, ch := range rep.Cohorts {
		switch {
		case ch.Index != rep.CohortsFrom+k:
			return fmt.Sprintf("cohort %d at position %d", ch.Index, rep.CohortsFrom+k)
		case !counts(ch.First, ch.Attempts, ch.Succeeded, ch.Open):
			return fmt.Sprintf("cohort %d: a count out of range", ch.Index)
		case ch.Succeeded+ch.Open > ch.First || ch.First > ch.Attempts:
			return fmt.Sprintf("cohort %d: %d succeeded and %d open of %d requests with %d attempts", ch.Index, ch.Succeeded, ch.Open, ch.First, ch.Attempts)
		}
	}
	return ""
}

// checkSecond checks one second by itself; "" when it adds up.
func checkSecond(s loadgen.Second, span time.Duration) string {
	if !counts(s.Planned, s.Sent, s.Dropped, s.Refused, s.Retries, s.RetryRefused, s.Succeeded, s.Failed,
		s.Pending, s.InFlight, s.TracerSent, s.TracerRefused, s.TracerTimeouts) ||
		!counts(s.AttemptsByNumber[:]...) || !counts(s.FirstOutcomes[:]...) ||
		!counts(s.RetryOutcomes[:]...) || !counts(s.TracerOutcomes[:]...) {
		return "a count negative or out of range"
	}
	var byNumber int64
	for _, n := range s.AttemptsByNumber {
		byNumber += n
	}
	if s.AttemptsByNumber[0] != 0 || s.AttemptsByNumber[1] != s.Sent || byNumber != s.Sent+s.Retries {
		return fmt.Sprintf("attempts by number add up to %d, not the %d first attempts and %d retries", byNumber, s.Sent, s.Retries)
	}
	if len(s.Requests) > maxMix {
		return fmt.Sprintf("%d requests in the mix", len(s.Requests))
	}
	if len(s.Requests) > 0 {
		var sent int64
		for _, rq := range s.Requests {
			if !counts(rq.Sent) || !counts(rq.FirstOutcomes[:]...) {
				return "a request's count negative or out of range"
			}
			sent += rq.Sent
		}
		if sent != s.Sent {
			return fmt.Sprintf("the mix's requests add up to %d first attempts, not %d", sent, s.Sent)
		}
	}
	for name, sum := range map[string]loadgen.Summary{
		"tracer wait": s.TracerWait, "tracer error latency": s.TracerErrorLatency,
		"lag": s.Lag, "latency": s.Latency, "error latency": s.ErrorLatency,
	} {
		if !counts(sum.Count) || !durations(span, sum.Mean, sum.Min, sum.P10, sum.P50, sum.P90, sum.P99, sum.Max) {
			return name + " out of range (a count negative, or a duration not within the run)"
		}
	}
	if !durations(span, s.Stalled) {
		return "a stall not within the run"
	}
	var completed int64
	for o := range vocab.NumOutcomes {
		completed += s.FirstOutcomes[o] + s.RetryOutcomes[o]
	}
	if s.Latency.Count > completed {
		return fmt.Sprintf("%d latencies of %d completed attempts", s.Latency.Count, completed)
	}
	return ""
}

// counts reports whether every n is a count: 0 ≤ n ≤ maxCount.
func counts(ns ...int64) bool {
	for _, n := range ns {
		if n < 0 || n > maxCount {
			return false
		}
	}
	return true
}

// durations reports whether every v (seconds) is finite, non-negative
// and at most span.
func durations(span time.Duration, vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > span.Seconds() {
			return false
		}
	}
	return true
}
