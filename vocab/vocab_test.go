package vocab

import (
	"fmt"
	"strings"
	"testing"
)

// enum is one enumeration seen through strings: its names, its parser and
// what it parses an empty string to ("" when empty is an error).
type enum struct {
	what  string
	names []string
	parse func(string) (fmt.Stringer, error)
	empty string
}

func enums() []enum {
	return []enum{
		{"arrivals", ArrivalsNames(), func(s string) (fmt.Stringer, error) { return ParseArrivals(s) }, "poisson"},
		{"backoff", BackoffKindNames(), func(s string) (fmt.Stringer, error) { return ParseBackoffKind(s) }, "none"},
		{"jitter", JitterNames(), func(s string) (fmt.Stringer, error) { return ParseJitter(s) }, "none"},
		{"outcome", OutcomeNames(), func(s string) (fmt.Stringer, error) { return ParseOutcome(s) }, ""},
		{"service time", ServiceTimeNames(), func(s string) (fmt.Stringer, error) { return ParseServiceTime(s) }, "deterministic"},
		{"queue", QueueNames(), func(s string) (fmt.Stringer, error) { return ParseQueue(s) }, "per_pod"},
		{"latency law", LatencyLawNames(), func(s string) (fmt.Stringer, error) { return ParseLatencyLaw(s) }, "queue"},
		{"discipline", DisciplineNames(), func(s string) (fmt.Stringer, error) { return ParseDiscipline(s) }, "fifo"},
		{"signal", ScalerSignalNames(), func(s string) (fmt.Stringer, error) { return ParseScalerSignal(s) }, ""},
		{"protocol", ProtocolNames(), func(s string) (fmt.Stringer, error) { return ParseProtocol(s) }, "http1"},
		{"on_trap action", TrapActionNames(), func(s string) (fmt.Stringer, error) { return ParseTrapAction(s) }, ""},
		{"campaign search", SearchKindNames(), func(s string) (fmt.Stringer, error) { return ParseSearchKind(s) }, "multiplier"},
	}
}

// Every name parses to a value that prints as the name, whatever its case
// and surrounding space.
func TestParseRoundTrip(t *testing.T) {
	for _, e := range enums() {
		if len(e.names) < 2 {
			t.Errorf("%s: names %v", e.what, e.names)
		}
		for _, n := range e.names {
			for _, in := range []string{n, strings.ToUpper(n), " " + n + "\t"} {
				v, err := e.parse(in)
				if err != nil || v.String() != n {
					t.Errorf("%s: parse(%q) = %v, %v; want %s", e.what, in, v, err, n)
				}
			}
		}
	}
}

// An empty string is the default where there is one, an error otherwise.
func TestParseEmpty(t *testing.T) {
	for _, e := range enums() {
		v, err := e.parse("")
		switch {
		case e.empty == "" && err == nil:
			t.Errorf("%s: parse(\"\") = %v, want an error", e.what, v)
		case e.empty != "" && (err != nil || v.String() != e.empty):
			t.Errorf("%s: parse(\"\") = %v, %v; want %s", e.what, v, err, e.empty)
		}
	}
}

// An unknown name is an error that quotes it and lists every valid name.
func TestParseErrorNamesValidValues(t *testing.T) {
	for _, e := range enums() {
		_, err := e.parse("teapot")
		if err == nil {
			t.Errorf("%s: teapot accepted", e.what)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, `"teapot"`) {
			t.Errorf("%s: error %q does not quote the value", e.what, msg)
		}
		for _, n := range e.names {
			if !strings.Contains(msg, n) {
				t.Errorf("%s: error %q does not name %s", e.what, msg, n)
			}
		}
	}
}

func TestStringOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{Arrivals(7), "arrivals(7)"},
		{BackoffKind(9), "backoff(9)"},
		{Jitter(9), "jitter(9)"},
		{NumOutcomes, "outcome(9)"},
		{ServiceTime(3), "service_time(3)"},
		{Queue(2), "queue(2)"},
		{Discipline(3), "discipline(3)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

// The zero value of each integer enumeration is its default, so a zero
// config field means the documented default.
func TestDefaultsAreZero(t *testing.T) {
	if DefaultArrivals != 0 || DefaultBackoffKind != 0 || DefaultJitter != 0 ||
		DefaultServiceTime != 0 || DefaultQueue != 0 || DefaultDiscipline != 0 {
		t.Error("a default enumeration value is not the zero value")
	}
}

func TestOutcomeLists(t *testing.T) {
	if got := strings.Join(RetryOnNames(), ","); got != "timeout,connect,5xx,429,503,4xx,other,auth" {
		t.Errorf("RetryOnNames = %s", got)
	}
	if got := strings.Join(Names(DefaultRetryOn()), ","); got != "timeout,connect,5xx" {
		t.Errorf("DefaultRetryOn = %s", got)
	}
	if len(OutcomeNames()) != int(NumOutcomes) {
		t.Errorf("%d names for %d outcomes", len(OutcomeNames()), NumOutcomes)
	}
	// The lists are copies: changing one changes nothing here.
	n := OutcomeNames()
	n[0] = "changed"
	if OutcomeOK.String() != "ok" {
		t.Error("OutcomeNames returned the package's own slice")
	}
}

func TestScalerSignalValid(t *testing.T) {
	for _, n := range ScalerSignalNames() {
		if !ScalerSignal(n).Valid() {
			t.Errorf("%s not valid", n)
		}
	}
	if ScalerSignal("latency").Valid() || ScalerSignal("").Valid() {
		t.Error("an unknown signal is valid")
	}
}

// A text with per-request markers splits back into its pieces and slots;
// a malformed marker stays text; Readable spells each slot by its name.
func TestSplitMarkers(t *testing.T) {
	s := "/v1/" + PerRequestSeq.Marker() + "?id=" + PerRequestID.Marker() + Marker(12) + "&x" + MarkerOpen + "zz" + MarkerClose
	got := SplitMarkers(s)
	want := []Part{{Text: "/v1/"}, {Slot: int(PerRequestSeq), IsValue: true}, {Text: "?id="}, {Slot: int(PerRequestID), IsValue: true},
		{Slot: 12, IsValue: true}, {Text: "&x" + MarkerOpen + "zz" + MarkerClose}}
	if len(got) != len(want) {
		t.Fatalf("SplitMarkers = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("part %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !HasMarker(s) || HasMarker("plain") {
		t.Error("HasMarker")
	}
	if p := SplitMarkers("plain"); len(p) != 1 || p[0].Text != "plain" {
		t.Errorf("plain text: %+v", p)
	}
	slots := append(FixedSlots(), Slot{Value: PerDataColumn, Name: "data.users.email"})
	if got := Readable("/u/"+Marker(3)+"?s="+PerRequestSeq.Marker(), slots); got != "/u/${data.users.email}?s=${request.seq}" {
		t.Errorf("Readable = %q", got)
	}
}
