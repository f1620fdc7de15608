package vocab

// BackoffKind is how the delay before a retry grows with the retry number
// (a scenario's client.retry.backoff.kind).
type BackoffKind uint8

const (
	// BackoffNone retries immediately.
	BackoffNone BackoffKind = iota
	// BackoffConstant waits the base delay before every retry.
	BackoffConstant
	// BackoffExponential waits base·2^(n−1) before retry n, capped at the
	// backoff's max.
	BackoffExponential
)

// DefaultBackoffKind is the backoff kind when none is named.
const DefaultBackoffKind = BackoffNone

var backoffNames = []string{"none", "constant", "exponential"}

// String returns "none", "constant" or "exponential".
func (k BackoffKind) String() string { return name("backoff", backoffNames, int(k)) }

// ParseBackoffKind parses "none", "constant" or "exponential"; empty means
// DefaultBackoffKind.
func ParseBackoffKind(s string) (BackoffKind, error) {
	i, err := parse("backoff kind", backoffNames, s, true)
	return BackoffKind(i), err
}

// BackoffKindNames returns the names of the backoff kinds, in order.
func BackoffKindNames() []string { return clone(backoffNames) }
