package convert

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// requestRows are each request's first attempts of a second of the
// driver's, by class as DriverRow counts them.
func requestRows(reqs []loadgen.RequestSecond) []analysis.RequestRow {
	if len(reqs) == 0 {
		return nil
	}
	out := make([]analysis.RequestRow, len(reqs))
	for i, q := range reqs {
		fo := q.FirstOutcomes
		out[i] = analysis.RequestRow{
			First:             float64(q.Sent),
			FirstOK:           float64(fo[vocab.OutcomeOK]),
			FirstTimeouts:     float64(fo[vocab.OutcomeTimeout]),
			FirstErrors:       float64(fo[vocab.Outcome5xx] + fo[vocab.Outcome503] + fo[vocab.Outcome429] + fo[vocab.Outcome4xx] + fo[vocab.OutcomeAuth]),
			FirstConnect:      float64(fo[vocab.OutcomeConnect]),
			FirstClientErrors: float64(fo[vocab.Outcome4xx] + fo[vocab.OutcomeAuth]),
			FirstOther:        float64(fo[vocab.OutcomeOther]),
		}
	}
	return out
}

// DriverRows are the driver's seconds as timeline rows (DriverRow): what
// a probe that is no run (trigger campaign's, between cells) hands to the
// runs' own rules, such as infer.FindRecovery.
func DriverRows(secs []loadgen.Second) []analysis.TimelineRow {
	out := make([]analysis.TimelineRow, len(secs))
	for i, s := range secs {
		out[i] = DriverRow(s)
	}
	return out
}

// DriverRow is one of the driver's seconds as a timeline row: every
// column the driver knows, the service's (ingress, served, wait, ...)
// unknown (NaN) for the runner to fill from Prometheus.
func DriverRow(sec loadgen.Second) analysis.TimelineRow {
	fo, ro, to := sec.FirstOutcomes, sec.RetryOutcomes, sec.TracerOutcomes
	both := func(o vocab.Outcome) float64 { return float64(fo[o] + ro[o]) }
	var firstDone int64
	for _, n := range fo {
		firstDone += n
	}
	summary := func(s loadgen.Summary, v float64) float64 {
		if s.Count == 0 {
			return math.NaN()
		}
		return v
	}
	return analysis.TimelineRow{
		Requests:               requestRows(sec.Requests),
		Fault:                  math.NaN(),
		TS:                     float64(sec.Index),
		Planned:                float64(sec.Planned),
		Sent:                   float64(sec.Sent),
		Retries:                float64(sec.Retries),
		Dropped:                float64(sec.Dropped),
		Refused:                float64(sec.Refused + sec.RetryRefused),
		FirstOK:                float64(fo[vocab.OutcomeOK]),
		FirstDone:              float64(firstDone),
		OK:                     both(vocab.OutcomeOK),
		Timeouts:               both(vocab.OutcomeTimeout),
		Rejected:               both(vocab.Outcome503) + both(vocab.Outcome429),
		Errors:                 both(vocab.Outcome5xx) + both(vocab.Outcome4xx) + both(vocab.OutcomeAuth) + both(vocab.OutcomeConnect) + both(vocab.OutcomeOther),
		Connect:                both(vocab.OutcomeConnect),
		FirstTimeouts:          float64(fo[vocab.OutcomeTimeout]),
		FirstErrors:            float64(fo[vocab.Outcome5xx] + fo[vocab.Outcome503] + fo[vocab.Outcome429] + fo[vocab.Outcome4xx] + fo[vocab.OutcomeAuth]),
		FirstConnect:           float64(fo[vocab.OutcomeConnect]),
		FirstClientErrors:      float64(fo[vocab.Outcome4xx] + fo[vocab.OutcomeAuth]),
		FirstAuth:              float64(fo[vocab.OutcomeAuth]),
		Succeeded:              float64(sec.Succeeded),
		Failed:                 float64(sec.Failed),
		Pending:                float64(sec.Pending),
		InFlight:               float64(sec.InFlight),
		TracerWaitS:            summary(sec.TracerWait, sec.TracerWait.P50),
		LagP99S:                summary(sec.Lag, sec.Lag.P99),
		LatencyP50S:            summary(sec.Latency, sec.Latency.P50),
		LatencyP99S:            summary(sec.Latency, sec.Latency.P99),
		ErrorLatencyP10S:       summary(sec.ErrorLatency, sec.ErrorLatency.P10),
		ErrorLatencyP50S:       summary(sec.ErrorLatency, sec.ErrorLatency.P50),
		ErrorLatencyP90S:       summary(sec.ErrorLatency, sec.ErrorLatency.P90),
		TracerServed:           float64(to[vocab.OutcomeOK] + to[vocab.Outcome4xx] + to[vocab.OutcomeAuth]),
		TracerErrors:           float64(to[vocab.Outcome5xx] + to[vocab.Outcome503]),
		TracerErrorLatencyP50S: summary(sec.TracerErrorLatency, sec.TracerErrorLatency.P50),
		TracersRefused:         float64(sec.TracerRefused),
		TracersSent:            float64(sec.TracerSent),
		DriverStalledS:         sec.Stalled,
		IngressPerS:            math.NaN(),
		ServiceFirstPerS:       math.NaN(),
		ServedPerS:             math.NaN(),
		AbandonedPerS:          math.NaN(),
		WaitS:                  math.NaN(),
		Pods:                   math.NaN(),
		BacklogWaitS:           math.NaN(),
	}
}
