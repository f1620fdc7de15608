package analysis

import "math"

// OddsBracket is a Bracket over cells repeated until the sequential rule
// places each against a level of P(trap) (SequentialSide; docs/model.md,
// "Mapping the boundary"): a cell Above is on the trapped side, one Below
// on the recovered side. A cell its trials could not tell from the level
// (Undecided once its budget is spent) is the boundary's own estimate:
// the search stops narrowing there (BracketAtLevel), as no size between
// it and its neighbours can be told apart with the same budget either.
type OddsBracket struct {
	Bracket
	// Level is the P(trap) searched for, 0 < Level < 1.
	Level float64
	// Straddle is the size of the undecided cell; NaN while none.
	Straddle float64
}

// BracketAtLevel ends a search at a cell whose trials could not tell it
// from the level.
const BracketAtLevel BracketEnd = "a cell's trials could not tell it from the level"

// NewOddsBracket starts a search from from towards to, as NewBracket, for
// the size at which P(trap) crosses level.
func NewOddsBracket(from, to, precision, level float64) OddsBracket {
	return OddsBracket{Bracket: NewBracket(from, to, precision), Level: level, Straddle: math.NaN()}
}

// RecordSide adds a cell's side.
func (b *OddsBracket) RecordSide(size float64, s Side) {
	switch s {
	case Above:
		b.Record(size, true)
	case Below:
		b.Record(size, false)
	default:
		b.Tried++
		b.Straddle = size
	}
}

// Next returns the next size to try, or why the search is over.
func (b OddsBracket) Next() (float64, BracketEnd) {
	if !math.IsNaN(b.Straddle) {
		return math.NaN(), BracketAtLevel
	}
	return b.Bracket.Next()
}

// String names a side as campaign.json writes it.
func (s Side) String() string {
	switch s {
	case Above:
		return "above"
	case Below:
		return "below"
	}
	return "undecided"
}
