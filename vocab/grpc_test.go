package vocab

import "testing"

// TestGRPCCodeOutcome holds the gRPC status → outcome class table, code by
// code, as the spec numbers them.
func TestGRPCCodeOutcome(t *testing.T) {
	want := map[uint32]Outcome{
		0: OutcomeOK, 1: Outcome4xx, 2: Outcome5xx, 3: Outcome4xx, 4: OutcomeTimeout,
		5: Outcome4xx, 6: Outcome4xx, 7: OutcomeAuth, 8: Outcome429, 9: Outcome4xx,
		10: Outcome4xx, 11: Outcome4xx, 12: Outcome4xx, 13: Outcome5xx, 14: Outcome503,
		15: Outcome5xx, 16: OutcomeAuth, 17: OutcomeOther, 1000: OutcomeOther,
	}
	for code, o := range want {
		if got := GRPCCodeOutcome(code); got != o {
			t.Errorf("GRPCCodeOutcome(%d) = %s, want %s", code, got, o)
		}
	}
}

// TestParseGRPCStatus: every non-OK name, any case, is its code's class;
// "ok" and unknown names are not aliases.
func TestParseGRPCStatus(t *testing.T) {
	names := GRPCStatusNames()
	if len(names) != 16 || names[0] != "cancelled" || names[15] != "unauthenticated" {
		t.Fatalf("GRPCStatusNames() = %v", names)
	}
	for i, n := range names {
		code := uint32(i + 1)
		if GRPCCodeName(code) != n {
			t.Errorf("GRPCCodeName(%d) = %q, want %q", code, GRPCCodeName(code), n)
		}
		for _, s := range []string{n, " " + n + " ", upper(n)} {
			o, ok := ParseGRPCStatus(s)
			if !ok || o != GRPCCodeOutcome(code) {
				t.Errorf("ParseGRPCStatus(%q) = %s, %v; want %s", s, o, ok, GRPCCodeOutcome(code))
			}
		}
	}
	for _, s := range []string{"ok", "OK", "5xx", "unavailabl", ""} {
		if _, ok := ParseGRPCStatus(s); ok {
			t.Errorf("ParseGRPCStatus(%q) took it", s)
		}
	}
	if GRPCCodeName(17) != "" {
		t.Error("GRPCCodeName(17) named something")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestSample: markers become sample values, a whole number's a bare 1.
func TestSample(t *testing.T) {
	s := `{"id":"` + PerRequestID.Marker() + `","n":` + PerRequestSeq.Marker() + `,"u":"a-` + PerRandomUUID.Marker() + `"}`
	if got, want := Sample(s, nil), `{"id":"x","n":1,"u":"a-x"}`; got != want {
		t.Errorf("Sample = %s, want %s", got, want)
	}
	if Sample("plain", nil) != "plain" {
		t.Error("Sample changed a text without markers")
	}
}
