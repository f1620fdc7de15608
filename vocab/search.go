package vocab

// SearchKind is what a campaign varies to find the smallest trigger that
// traps (a scenario's campaign.search).
type SearchKind uint8

const (
	// SearchMultiplier varies the spike's multiplier k at a fixed Δ.
	SearchMultiplier SearchKind = iota
	// SearchDuration varies the spike's duration Δ at a fixed k.
	SearchDuration
	// SearchCapacity varies the capacity a fault takes away.
	SearchCapacity
)

var searchKindNames = []string{"multiplier", "duration", "capacity"}

// String returns "multiplier", "duration" or "capacity".
func (k SearchKind) String() string { return name("campaign search", searchKindNames, int(k)) }

// ParseSearchKind parses "multiplier", "duration" or "capacity"; empty is
// "multiplier".
func ParseSearchKind(s string) (SearchKind, error) {
	i, err := parse("campaign search", searchKindNames, s, true)
	return SearchKind(i), err
}

// SearchKindNames returns the names of the campaign searches, in order.
func SearchKindNames() []string { return clone(searchKindNames) }
