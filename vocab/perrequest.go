package vocab

import "strings"

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
)

var perRequestNames = []string{"request.id", "request.seq", "random.uuid"}

// String returns "request.id", "request.seq" or "random.uuid".
func (p PerRequest) String() string { return name("per-request value", perRequestNames, int(p)) }

// PerRequestNames returns the names of the per-request values, in order.
func PerRequestNames() []string { return clone(perRequestNames) }

// Markers hold a per-request value's place in a decoded text until the
// driver fills it in for each logical request: markerOpen, the value's
// number as one rune, markerClose (private-use code points, which a
// scenario's text may not hold itself).
const (
	markerOpen  = '\ue000'
	markerClose = '\ue001'
)

// Marker is the text that stands for p in a decoded string.
func (p PerRequest) Marker() string {
	return string([]rune{markerOpen, 'a' + rune(p), markerClose})
}

// HasMarker reports whether s holds a per-request value's marker (or a
// marker's code point a scenario may not use).
func HasMarker(s string) bool { return strings.ContainsAny(s, string([]rune{markerOpen, markerClose})) }

// Part is a piece of a per-request text: literal Text, or, when IsValue,
// the per-request Value.
type Part struct {
	Text    string
	Value   PerRequest
	IsValue bool
}

// SplitMarkers splits s into its literal pieces and per-request values;
// a malformed marker is kept as text.
func SplitMarkers(s string) []Part {
	var out []Part
	for {
		i := strings.IndexRune(s, markerOpen)
		if i < 0 {
			break
		}
		rest := []rune(s[i+len(string(markerOpen)):])
		if len(rest) < 2 || rest[1] != markerClose || rest[0] < 'a' || int(rest[0]-'a') >= len(perRequestNames) {
			break
		}
		if i > 0 {
			out = append(out, Part{Text: s[:i]})
		}
		out = append(out, Part{Value: PerRequest(rest[0] - 'a'), IsValue: true})
		s = string(rest[2:])
	}
	if s != "" {
		out = append(out, Part{Text: s})
	}
	return out
}

// Readable is s with each per-request value's marker written as the
// scenario spells it (${request.id}), for messages and prompts.
func Readable(s string) string {
	if !HasMarker(s) {
		return s
	}
	var b strings.Builder
	for _, p := range SplitMarkers(s) {
		if p.IsValue {
			b.WriteString("${" + p.Value.String() + "}")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
