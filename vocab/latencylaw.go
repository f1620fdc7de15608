package vocab

// LatencyLaw is how a service's latency depends on the requests in flight
// (a scenario's service.latency_law; docs/model.md, "Latency laws and what
// sustains a trap").
type LatencyLaw uint8

const (
	// LawQueue is a FIFO queue behind servers or a latency floor:
	// L = max(L₀, N/C). Latency stays at the floor until the servers are
	// busy, then grows by the backlog over C.
	LawQueue LatencyLaw = iota
	// LawConcurrency is latency that grows with every request in flight,
	// no queue (processor sharing, contention): L = L₀ + N/C, and the
	// throughput N/L never reaches C.
	LawConcurrency
)

// DefaultLatencyLaw is the law assumed when none is named or measured.
const DefaultLatencyLaw = LawQueue

var latencyLawNames = []string{"queue", "concurrency"}

// String returns "queue" or "concurrency".
func (l LatencyLaw) String() string { return name("latency law", latencyLawNames, int(l)) }

// MarshalText writes the law's name (result.json).
func (l LatencyLaw) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a law's name.
func (l *LatencyLaw) UnmarshalText(b []byte) error {
	v, err := ParseLatencyLaw(string(b))
	*l = v
	return err
}

// ParseLatencyLaw parses "queue" or "concurrency"; empty means
// DefaultLatencyLaw.
func ParseLatencyLaw(s string) (LatencyLaw, error) {
	i, err := parse("latency law", latencyLawNames, s, true)
	return LatencyLaw(i), err
}

// LatencyLawNames returns the names of the latency laws, in order.
func LatencyLawNames() []string { return clone(latencyLawNames) }
