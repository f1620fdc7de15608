package report

import (
	"bytes"
	"encoding/xml"
	"slices"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The JUnit report of each real run, against its golden file.
func TestJUnitGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			doc, _ := loadFixture(t, name)
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, doc); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".junit.xml", buf.Bytes())
		})
	}
}

// readJUnit parses the report back, as a CI system would.
func readJUnit(t *testing.T, doc analysis.Document) junitSuites {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, doc); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, buf.String())
	}
	if len(got.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(got.Suites))
	}
	return got
}

// One test case per gate criterion, a failure for each failed one, the
// counts in the attributes, the verdict in the properties.
func TestJUnitCases(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fixture  string
		edit     func(*analysis.Document)
		cases    []string // test case names, in order
		failed   []string // those with a <failure>
		verdict  string
		recovery string
	}{
		// recovers.hcl: three criteria, all passed.
		{"recovered", "recovered", func(*analysis.Document) {}, []string{"trigger", "trap", "recovery"}, nil, "recovered", "54.9982"},
		// trapped.hcl: the trap criterion failed; no recovery time.
		{"trapped", "trapped", func(*analysis.Document) {}, []string{"trigger", "trap"}, []string{"trap"}, "trapped", "null"},
		// No trigger: the gate says so with a failed "trigger" criterion.
		{"no trigger", "recovered", func(d *analysis.Document) {
			d.Verdict, d.RecoveryS = analysis.VerdictNoTrigger, nil
			d.Gate = analysis.EvaluateGate(analysis.GateSpec{MaxRecoveryS: 120}, analysis.VerdictNoTrigger, 0, 0, 0)
		}, []string{"trigger"}, []string{"trigger"}, "no-trigger", "null"},
		// A gate never evaluated: one failed "gate" case, never an empty suite.
		{"no gate", "recovered", func(d *analysis.Document) { d.Gate = analysis.GateResult{Passed: true} },
			[]string{"gate"}, []string{"gate"}, "recovered", "54.9982"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := loadFixture(t, tc.fixture)
			tc.edit(&doc)
			got := readJUnit(t, doc)
			s := got.Suites[0]
			if s.Name != "trigger "+doc.Scenario.Name {
				t.Errorf("suite name %q", s.Name)
			}
			if s.Tests != len(tc.cases) || s.Failures != len(tc.failed) || got.Tests != s.Tests || got.Failures != s.Failures {
				t.Errorf("counts: suites %d/%d, suite %d/%d; want %d tests, %d failures", got.Tests, got.Failures, s.Tests, s.Failures, len(tc.cases), len(tc.failed))
			}
			var names, failed []string
			for _, c := range s.Cases {
				names = append(names, c.Name)
				if c.Failure != nil {
					failed = append(failed, c.Name)
					if c.Failure.Message == "" {
						t.Errorf("case %s: failure without a message", c.Name)
					}
				}
			}
			if !slices.Equal(names, tc.cases) || !slices.Equal(failed, tc.failed) {
				t.Errorf("cases %v (failed %v), want %v (failed %v)", names, failed, tc.cases, tc.failed)
			}
			props := map[string]string{}
			for _, p := range s.Properties {
				props[p.Name] = p.Value
			}
			if props["verdict"] != tc.verdict || props["recovery_s"] != tc.recovery || props["A_fail"] == "" {
				t.Errorf("properties %v", props)
			}
		})
	}
}
