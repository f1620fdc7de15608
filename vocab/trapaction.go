package vocab

// TrapAction is what a run does once it has judged the service trapped
// (a scenario's on_trap.action).
type TrapAction uint8

const (
	// TrapDrop drops demand to zero and times the drain.
	TrapDrop TrapAction = iota
	// TrapRate sets demand to on_trap.rate first attempts per second.
	TrapRate
	// TrapCommand runs on_trap.command; demand stays at baseline.
	TrapCommand
)

var trapActionNames = []string{"drop", "rate", "command"}

// String returns "drop", "rate" or "command".
func (a TrapAction) String() string { return name("on_trap action", trapActionNames, int(a)) }

// ParseTrapAction parses "drop", "rate" or "command"; there is no default.
func ParseTrapAction(s string) (TrapAction, error) {
	i, err := parse("on_trap action", trapActionNames, s, false)
	return TrapAction(i), err
}

// TrapActionNames returns the names of the on_trap actions, in order.
func TrapActionNames() []string { return clone(trapActionNames) }
