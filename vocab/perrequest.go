package vocab

import (
	"strconv"
	"strings"
)

// PerRequest names a value evaluated once per logical request, as a
// scenario spells it in a target's url, headers and body: its retries
// resend the same value.
type PerRequest uint8

const (
	// PerRequestID is request.id: the logical request's X-Request-Id.
	PerRequestID PerRequest = iota
	// PerRequestSeq is request.seq: its sequence number in the driver's
	// run, from 1.
	PerRequestSeq
	// PerRandomUUID is random.uuid: a random version-4 UUID.
	PerRandomUUID
	// PerRandomInt is random::int(lo, hi): a whole number drawn uniformly
	// from lo to hi, both included; each call in the scenario draws its own.
	PerRandomInt
	// PerDataColumn is data.NAME.COLUMN: the column's value in the row of
	// data set NAME this logical request drew.
	PerDataColumn
)

var perRequestNames = []string{"request.id", "request.seq", "random.uuid", "random::int", "data"}

// String returns "request.id", "request.seq", "random.uuid", "random::int"
// or "data".
func (p PerRequest) String() string { return name("per-request value", perRequestNames, int(p)) }

// Numeric reports whether p's values are whole numbers (request.seq,
// random::int): jsonencode writes them as JSON numbers.
func (p PerRequest) Numeric() bool { return p == PerRequestSeq || p == PerRandomInt }

// Slot is one per-request value as it stands in a decoded target's texts:
// the marker Marker(i) stands for slot i of the target's slot table,
// whose first entries are FixedSlots.
type Slot struct {
	Value PerRequest
	// Name is the value as the scenario spells it, for messages:
	// "request.id", "data.users.email", "random::int(1, 6)".
	Name string
	// Lo and Hi are random::int's bounds, both included.
	Lo, Hi int64
	// Draw numbers the random::int calls of a scenario: each draws apart
	// from the others, its JSON form (below) with it.
	Draw int
	// Data and Column are a data column's: the data set's index in the
	// driver's data sets and the column's in its Columns.
	Data, Column int
	// JSON says the value is written escaped as inside a JSON string,
	// without the quotes: it stands in a jsonencode'd string.
	JSON bool
}

// FixedSlots are the first entries of every slot table: request.id,
// request.seq and random.uuid, whose markers are PerRequest.Marker's.
func FixedSlots() []Slot {
	return []Slot{
		{Value: PerRequestID, Name: "request.id"},
		{Value: PerRequestSeq, Name: "request.seq"},
		{Value: PerRandomUUID, Name: "random.uuid"},
	}
}

// Markers hold a per-request value's place in a decoded text until the
// driver fills it in for each logical request: markerOpen, the slot's
// index in decimal digits, markerClose (private-use code points, which a
// scenario's text may not hold itself).
const (
	markerOpen  = '\ue000'
	markerClose = '\ue001'
)

// MarkerOpen and MarkerClose are the markers' first and last code points,
// as text.
const (
	MarkerOpen  = string(markerOpen)
	MarkerClose = string(markerClose)
)

// Marker is the text that stands for slot i of a slot table.
func Marker(i int) string { return MarkerOpen + strconv.Itoa(i) + MarkerClose }

// Marker is the text that stands for p, one of FixedSlots' values
// (request.id, request.seq, random.uuid).
func (p PerRequest) Marker() string { return Marker(int(p)) }

// HasMarker reports whether s holds a per-request value's marker (or a
// marker's code point a scenario may not use).
func HasMarker(s string) bool { return strings.ContainsAny(s, MarkerOpen+MarkerClose) }

// Part is a piece of a per-request text: literal Text, or, when IsValue,
// the per-request value of slot Slot.
type Part struct {
	Text    string
	Slot    int
	IsValue bool
}

// MarkerAt returns the slot of the marker s starts with and the marker's
// length in bytes; ok is false when s does not start with a well-formed
// marker.
func MarkerAt(s string) (slot, n int, ok bool) {
	if !strings.HasPrefix(s, MarkerOpen) {
		return 0, 0, false
	}
	digits := s[len(MarkerOpen):]
	end := strings.Index(digits, MarkerClose)
	if end < 1 || end > 6 {
		return 0, 0, false
	}
	i, err := strconv.Atoi(digits[:end])
	if err != nil || i < 0 {
		return 0, 0, false
	}
	return i, len(MarkerOpen) + end + len(MarkerClose), true
}

// SplitMarkers splits s into its literal pieces and per-request values;
// a malformed marker is kept as text.
func SplitMarkers(s string) []Part {
	var out []Part
	lit := 0 // start of the literal piece in progress
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], MarkerOpen)
		if j < 0 {
			break
		}
		i += j
		slot, n, ok := MarkerAt(s[i:])
		if !ok {
			i += len(MarkerOpen)
			continue
		}
		if i > lit {
			out = append(out, Part{Text: s[lit:i]})
		}
		out = append(out, Part{Slot: slot, IsValue: true})
		i += n
		lit = i
	}
	if lit < len(s) {
		out = append(out, Part{Text: s[lit:]})
	}
	return out
}

// Readable is s with each per-request value's marker written as the
// scenario spells it (${request.id}), for messages and prompts; slots is
// the target's slot table (nil: FixedSlots).
func Readable(s string, slots []Slot) string {
	return replaceMarkers(s, slots, func(sl *Slot) string {
		if sl == nil {
			return "${?}"
		}
		return "${" + sl.Name + "}"
	})
}

// replaceMarkers is s with each per-request value's marker replaced by
// what with gives for its slot (nil: a slot the table lacks); slots nil
// means FixedSlots.
func replaceMarkers(s string, slots []Slot, with func(*Slot) string) string {
	if !HasMarker(s) {
		return s
	}
	if slots == nil {
		slots = FixedSlots()
	}
	var b strings.Builder
	for _, p := range SplitMarkers(s) {
		switch {
		case !p.IsValue:
			b.WriteString(p.Text)
		case p.Slot < len(slots):
			b.WriteString(with(&slots[p.Slot]))
		default:
			b.WriteString(with(nil))
		}
	}
	return b.String()
}

// DataSet is a data file's rows (a scenario's data "NAME" block), read
// before any load: each logical request that uses one of its columns
// draws a row, in order or at random, and its retries resend it.
type DataSet struct {
	Name    string
	File    string     // the file's path as the scenario gives it
	Random  bool       // rows drawn at random; else in order, wrapping around
	Columns []string   // the header row's names (CSV) or the keys' (JSON lines)
	Rows    [][]string // each row's values, one per column ("" where a JSON line lacks one)
}

// Sample is s with each per-request value's marker replaced by a sample
// of it: "1" for a whole number (request.seq, random::int, as a JSON
// number where jsonencode wrote one), "x" for any other value. It lets a
// check parse a text that holds markers (a gRPC message's JSON) once,
// before any request; slots is the target's slot table (nil: FixedSlots).
func Sample(s string, slots []Slot) string {
	return replaceMarkers(s, slots, func(sl *Slot) string {
		if sl != nil && sl.Value.Numeric() {
			return "1"
		}
		return "x"
	})
}
