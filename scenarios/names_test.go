package scenarios

import (
	"strings"
	"testing"
)

// TestScenarioNames: the scenario's label becomes a folder name, so only
// names that cannot leave out/ or hide there are accepted.
func TestScenarioNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"checkout-spike", true},
		{"a.b_c-1", true},
		{"A", true},
		{"9lives", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 65), false}, // too long
		{"", false},                      // empty
		{".", false},                     // the folder itself
		{"..", false},                    // its parent
		{"../escaped", false},            // a path out
		{"a/b", false},                   // a path down
		{`a\b`, false},                   // a Windows path
		{".hidden", false},               // hidden
		{"-flag", false},                 // read as a flag
		{"tab\there", false},             // control character
		{"new\nline", false},             // control character
		{"spa ce", false},                // space
		{"café", false},                  // not ASCII
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eq(t, "validName", validName(tt.name), tt.ok)
			src := strings.Replace(minimal, `scenario "min" {}`, "scenario "+quoteHCL(tt.name)+" {}", 1) + "service { capacity = 100 }\n"
			s, err := Parse("n.hcl", []byte(src), nil)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				eq(t, "name", s.Name, tt.name)
				return
			}
			d := onlyError(t, err)
			eq(t, "summary", d.Summary, "Invalid scenario name")
			eq(t, "subject", string(d.Subject.SliceBytes([]byte(src))), quoteHCL(tt.name))
		})
	}
}
