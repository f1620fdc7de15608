package analysis

// PhaseLatency is the latency of a run's first attempts sent in one
// phase, as the clients saw it: from the send to the end of the answer,
// the error, or the client giving up (a timeout counts at the attempt's
// timeout, however late the client's timer fired). Every first attempt
// that completed counts, whatever its outcome; Succeeded is the same over
// those that succeeded. An attempt counts in the phase it was sent in,
// whenever it ended; attempts the run's end cut short, and first attempts
// never sent (dropped, refused), have none.
type PhaseLatency struct {
	Phase Phase `json:"phase"`
	LatencyPercentiles
	Succeeded LatencyPercentiles `json:"succeeded"`
}

// LatencyPercentiles are the 50th, 95th and 99th percentiles of Attempts
// latencies, seconds, from an HDR histogram (within 1 %, rounded to three
// significant digits); null when Attempts is 0.
type LatencyPercentiles struct {
	Attempts int64    `json:"attempts"`
	P50S     *float64 `json:"p50_s"`
	P95S     *float64 `json:"p95_s"`
	P99S     *float64 `json:"p99_s"`
}
