package vocab

import "slices"

// ScalerSignal is what an autoscaler measures to size the service (a
// scenario's service.autoscaler.signal). Unlike the other enumerations it
// is a string, its own name, because the result document carries it as
// such; the empty value names no signal.
type ScalerSignal string

// The autoscaler signals, in the order they are listed to users.
const (
	// SignalCPU is the busy fraction, which includes abandoned work.
	SignalCPU ScalerSignal = "cpu"
	// SignalIngress counts every attempt that arrives, retries included.
	SignalIngress ScalerSignal = "ingress"
	// SignalFirstAttempts counts first attempts only (deduplicated demand):
	// it excludes the retry debt.
	SignalFirstAttempts ScalerSignal = "first_attempts"
	// SignalPaired takes the larger recommendation of first attempts and
	// ingress.
	SignalPaired ScalerSignal = "paired"
)

var signals = []ScalerSignal{SignalCPU, SignalIngress, SignalFirstAttempts, SignalPaired}

// String returns the signal's name.
func (s ScalerSignal) String() string { return string(s) }

// Valid reports whether s is one of the signals.
func (s ScalerSignal) Valid() bool { return slices.Contains(signals, s) }

// ParseScalerSignal parses "cpu", "ingress", "first_attempts" or "paired";
// empty is an error (no signal is the default everywhere).
func ParseScalerSignal(s string) (ScalerSignal, error) {
	i, err := parse("autoscaler signal", ScalerSignalNames(), s, false)
	if err != nil {
		return "", err
	}
	return signals[i], nil
}

// ScalerSignalNames returns the names of the autoscaler signals, in order.
func ScalerSignalNames() []string {
	out := make([]string, len(signals))
	for i, s := range signals {
		out[i] = string(s)
	}
	return out
}
