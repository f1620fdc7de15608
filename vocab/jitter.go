package vocab

// Jitter is how a backoff delay is randomised (a scenario's
// client.retry.backoff.jitter; the AWS Architecture Blog's "Exponential
// Backoff And Jitter" variants).
type Jitter uint8

const (
	// JitterNone uses the backoff delay d as is.
	JitterNone Jitter = iota
	// JitterFull draws uniformly in [0, d].
	JitterFull
	// JitterEqual draws uniformly in [d/2, d].
	JitterEqual
	// JitterDecorrelated draws uniformly in [base, 3·prev] (prev = the
	// previous delay, base for the first retry), capped at the backoff's max.
	JitterDecorrelated
)

// DefaultJitter is the jitter when none is named.
const DefaultJitter = JitterNone

var jitterNames = []string{"none", "full", "equal", "decorrelated"}

// String returns "none", "full", "equal" or "decorrelated".
func (j Jitter) String() string { return name("jitter", jitterNames, int(j)) }

// ParseJitter parses "none", "full", "equal" or "decorrelated"; empty
// means DefaultJitter.
func ParseJitter(s string) (Jitter, error) {
	i, err := parse("jitter", jitterNames, s, true)
	return Jitter(i), err
}

// JitterNames returns the names of the jitter variants, in order.
func JitterNames() []string { return clone(jitterNames) }
