package retry

import (
	"strings"

	"github.com/trigger-test/trigger/vocab"
)

// OutcomeSet is a set of outcome classes (a bit per Outcome).
type OutcomeSet uint16

// NewOutcomeSet returns the set of the given outcomes.
func NewOutcomeSet(os ...vocab.Outcome) OutcomeSet {
	var s OutcomeSet
	for _, o := range os {
		if o < vocab.NumOutcomes {
			s |= 1 << o
		}
	}
	return s
}

// Has reports whether o is in the set.
func (s OutcomeSet) Has(o vocab.Outcome) bool { return o < vocab.NumOutcomes && s&(1<<o) != 0 }

// String lists the set's outcomes, comma-separated.
func (s OutcomeSet) String() string {
	var parts []string
	for o := vocab.Outcome(0); o < vocab.NumOutcomes; o++ {
		if s.Has(o) {
			parts = append(parts, o.String())
		}
	}
	return strings.Join(parts, ",")
}
