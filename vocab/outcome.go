package vocab

// Outcome is the class of one attempt's result. Every class but OutcomeOK
// may be listed in a scenario's client.retry.on.
type Outcome uint8

const (
	// OutcomeOK is a response with a status that counts as success.
	OutcomeOK Outcome = iota
	// OutcomeTimeout is an attempt the client gave up on before the whole
	// response arrived.
	OutcomeTimeout
	// OutcomeConnect is a failure to connect, or a connection that failed
	// before any response.
	OutcomeConnect
	// Outcome5xx is a 5xx response other than 503.
	Outcome5xx
	// Outcome429 is a 429 Too Many Requests response.
	Outcome429
	// Outcome503 is a 503 Service Unavailable response.
	Outcome503
	// Outcome4xx is a 4xx response other than 429, 401 and 403.
	Outcome4xx
	// OutcomeOther is anything else: a broken exchange, or a status that is
	// neither a success nor an error status.
	OutcomeOther
	// OutcomeAuth is a 401 Unauthorized or 403 Forbidden response: the
	// request's credentials refused, not the service failing under load
	// (appended after OutcomeOther so the others keep their numbers).
	OutcomeAuth
	// NumOutcomes is the number of outcome classes (array sizes).
	NumOutcomes
)

var outcomeNames = []string{"ok", "timeout", "connect", "5xx", "429", "503", "4xx", "other", "auth"}

// String returns "ok", "timeout", "connect", "5xx", "429", "503", "4xx",
// "other" or "auth".
func (o Outcome) String() string { return name("outcome", outcomeNames, int(o)) }

// MarshalText writes the class's name (result.json).
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads a class's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	*o = v
	return err
}

// ParseOutcome parses an outcome class name as String prints it; empty is
// an error (no class is the default).
func ParseOutcome(s string) (Outcome, error) {
	i, err := parse("outcome", outcomeNames, s, false)
	return Outcome(i), err
}

// OutcomeNames returns the names of every outcome class, in order.
func OutcomeNames() []string { return clone(outcomeNames) }

// RetryOnNames returns the names of the classes a retry policy may retry:
// every class but "ok", in order.
func RetryOnNames() []string { return clone(outcomeNames[OutcomeOK+1:]) }

// DefaultRetryOn returns the classes retried when a retry policy names
// none: timeouts, connection failures and 5xx other than 503.
func DefaultRetryOn() []Outcome { return []Outcome{OutcomeTimeout, OutcomeConnect, Outcome5xx} }

// Names returns the names of outcomes, in their order.
func Names(outcomes []Outcome) []string {
	out := make([]string, len(outcomes))
	for i, o := range outcomes {
		out[i] = o.String()
	}
	return out
}
