package scenarios

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestClosest: the "did you mean" of enumerated values and names.
func TestClosest(t *testing.T) {
	tests := []struct {
		given   string
		options []string
		want    string
	}{
		{"exponental", backoffKinds, "exponential"},  // one letter dropped
		{"Exponential", backoffKinds, "exponential"}, // case ignored
		{"fulll", jitterKinds, "full"},               // one letter added
		{"poison", arrivalKinds, "poisson"},          // the classic
		{"first_attempt", scalerSignals, "first_attempts"},
		{"embeded", []string{"embedded"}, "embedded"},
		{"xyz", backoffKinds, ""},     // nothing close
		{"no", jitterKinds, ""},       // short words: "none" is 2 edits, half of "no" or more
		{"bogus", outcomeClasses, ""}, // nothing close
		{"", outcomeClasses, ""},      // empty
		{"timeout", nil, ""},          // no options
		{"baselin", []string{"baseline", "multiplier"}, "baseline"},
	}
	for _, tt := range tests {
		if got := closest(tt.given, tt.options); got != tt.want {
			t.Errorf("closest(%q, %q) = %q, want %q", tt.given, tt.options, got, tt.want)
		}
	}
}

// TestErrorString: Error() is one line naming the file, the count and the
// first error with its line and column.
func TestErrorString(t *testing.T) {
	at := func(file string, line, col int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
	}
	warn := &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "W", Subject: at("s.hcl", 1, 1)}
	err1 := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "E1", Subject: at("s.hcl", 3, 7)}
	err2 := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "E2", Subject: at("s.hcl", 9, 2)}
	noSubject := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable"}
	tests := []struct {
		diags hcl.Diagnostics
		want  string
	}{
		// Warnings are not counted when there are errors.
		{hcl.Diagnostics{warn, err1, err2}, "s.hcl: 2 problems; first: s.hcl:3:7: E1"},
		// One error.
		{hcl.Diagnostics{err2}, "s.hcl: 1 problem; first: s.hcl:9:2: E2"},
		// Only warnings.
		{hcl.Diagnostics{warn}, "s.hcl: 1 warning; first: s.hcl:1:1: W"},
		// An error without a source range comes first and has no position;
		// the file is still named from the others.
		{hcl.Diagnostics{noSubject, err1}, "s.hcl: 2 problems; first: Undeclared variable"},
	}
	for _, tt := range tests {
		e := &Error{Diagnostics: tt.diags}
		if got := e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestQuoteList renders option lists for details.
func TestQuoteList(t *testing.T) {
	eq(t, "none", quoteList(nil), "(none)")
	eq(t, "one", quoteList([]string{"a"}), `"a"`)
	eq(t, "two", quoteList([]string{"a", "b"}), `"a" or "b"`)
	eq(t, "three", quoteList([]string{"a", "b", "c"}), `"a", "b" or "c"`)
}
