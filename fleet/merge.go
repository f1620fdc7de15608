package fleet

import (
	"github.com/trigger-test/trigger/loadgen"
)

// mergeSeconds adds up one second of several agents: counts and the
// end-of-second gauges (pending, in flight) add; of each latency-like
// summary the count adds, the mean is weighted by the counts, the minimum
// is the least and the maximum the greatest, and each percentile is the
// greatest of the agents' that saw a value. That is an upper bound of the
// merged percentile (at that value every agent's distribution, and so
// their mixture, has reached the percentile's rank), conservative for a
// latency and a wait.
func mergeSeconds(index int, secs []loadgen.Second) loadgen.Second {
	out := loadgen.Second{Index: index}
	sums := func(dst *loadgen.Summary, src loadgen.Summary) { *dst = mergeSummary(*dst, src) }
	for _, s := range secs {
		out.Planned += s.Planned
		out.Sent += s.Sent
		out.Dropped += s.Dropped
		out.Refused += s.Refused
		out.Retries += s.Retries
		out.RetryRefused += s.RetryRefused
		for i := range s.AttemptsByNumber {
			out.AttemptsByNumber[i] += s.AttemptsByNumber[i]
		}
		for i := range s.FirstOutcomes {
			out.FirstOutcomes[i] += s.FirstOutcomes[i]
			out.RetryOutcomes[i] += s.RetryOutcomes[i]
			out.TracerOutcomes[i] += s.TracerOutcomes[i]
		}
		out.Succeeded += s.Succeeded
		out.Failed += s.Failed
		out.Pending += s.Pending
		out.InFlight += s.InFlight
		out.TracerSent += s.TracerSent
		out.TracerRefused += s.TracerRefused
		out.TracerTimeouts += s.TracerTimeouts
		sums(&out.TracerWait, s.TracerWait)
		sums(&out.TracerErrorLatency, s.TracerErrorLatency)
		sums(&out.Lag, s.Lag)
		sums(&out.Latency, s.Latency)
		sums(&out.ErrorLatency, s.ErrorLatency)
		for i, rq := range s.Requests {
			if i == len(out.Requests) {
				out.Requests = append(out.Requests, loadgen.RequestSecond{})
			}
			out.Requests[i].Sent += rq.Sent
			for o, n := range rq.FirstOutcomes {
				out.Requests[i].FirstOutcomes[o] += n
			}
		}
		// One agent that stalled makes the second's outcomes suspect.
		out.Stalled = max(out.Stalled, s.Stalled)
	}
	return out
}

// mergeSummary merges two summaries as mergeSeconds says.
func mergeSummary(a, b loadgen.Summary) loadgen.Summary {
	switch {
	case b.Count == 0:
		return a
	case a.Count == 0:
		return b
	}
	n := a.Count + b.Count
	return loadgen.Summary{
		Count: n,
		Mean:  (a.Mean*float64(a.Count) + b.Mean*float64(b.Count)) / float64(n),
		Min:   min(a.Min, b.Min),
		P10:   max(a.P10, b.P10),
		P50:   max(a.P50, b.P50),
		P90:   max(a.P90, b.P90),
		P99:   max(a.P99, b.P99),
		Max:   max(a.Max, b.Max),
	}
}

// mergeCohorts adds up the agents' cohorts second by second (every field
// adds: a logical request belongs to the agent that sent its first attempt).
func mergeCohorts(from int, each [][]loadgen.Cohort) []loadgen.Cohort {
	n := 0
	for _, cs := range each {
		n = max(n, len(cs))
	}
	if from >= n {
		return nil
	}
	out := make([]loadgen.Cohort, n-from)
	for i := range out {
		out[i].Index = from + i
	}
	for _, cs := range each {
		for i := from; i < len(cs); i++ {
			c := &out[i-from]
			c.First += cs[i].First
			c.Attempts += cs[i].Attempts
			c.Succeeded += cs[i].Succeeded
			c.Open += cs[i].Open
		}
	}
	return out
}
