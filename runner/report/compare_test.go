package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// compareDocs are the recovered fixture as a baseline and, as candidates,
// the same run recovering 50 % slower with A_fail grown beyond its
// interval, the trapped fixture, and a run of another scenario.
func compareDocs(t *testing.T) (base analysis.Document, slower, trapped, other analysis.Document) {
	base, _ = loadFixture(t, "recovered")
	trapped, _ = loadFixture(t, "trapped")
	// A_fail 3.0 [2.9, 3.1] in the baseline, 3.9 [3.7, 4.1] in the slower.
	base.Amplification.Measured, base.Amplification.MeasuredLo, base.Amplification.MeasuredHi = analysis.Num(3), analysis.Num(2.9), analysis.Num(3.1)
	slower = base
	r := *base.RecoveryS * 1.5
	slower.RecoveryS = &r
	slower.Amplification.Measured, slower.Amplification.MeasuredLo, slower.Amplification.MeasuredHi = analysis.Num(3.9), analysis.Num(3.7), analysis.Num(4.1)
	other = base
	other.Scenario.Name, other.Scenario.Hash = "another", "0123456789abcdef"
	base.Scenario.Hash = "fedcba9876543210"
	slower.Scenario.Hash = base.Scenario.Hash
	trapped.Scenario = base.Scenario // the same test, a release that traps
	return base, slower, trapped, other
}

// The comparison's text, Markdown and JUnit, against golden files: a
// regression of the recovery and of A_fail, a verdict that regressed,
// runs that are not comparable, and a run against itself.
func TestCompareGolden(t *testing.T) {
	base, slower, trapped, other := compareDocs(t)
	for _, tc := range []struct {
		name       string
		cand       analysis.Document
		regressed  bool
		comparable bool
	}{
		{"compare-slower", slower, true, true},
		{"compare-trapped", trapped, true, true},
		{"compare-other", other, false, false},
		{"compare-same", base, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := analysis.Compare(base, tc.cand, analysis.DefaultCompareThresholds)
			if c.Regressed != tc.regressed || c.Comparable != tc.comparable {
				t.Errorf("regressed %v comparable %v; want %v %v (%+v)", c.Regressed, c.Comparable, tc.regressed, tc.comparable, c)
			}
			var text, mdown, junit bytes.Buffer
			if err := WriteCompareText(&text, c, "out/main", "out/pr"); err != nil {
				t.Fatal(err)
			}
			if err := WriteCompareMarkdown(&mdown, c, "out/main", "out/pr"); err != nil {
				t.Fatal(err)
			}
			if err := WriteCompareJUnit(&junit, c); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".txt", text.Bytes())
			golden(t, tc.name+".md", mdown.Bytes())
			golden(t, tc.name+".junit.xml", junit.Bytes())
		})
	}
}

// "No regression" names the gated figures a run did not measure, so it
// does not read as if they were compared.
func TestCompareHeadlineNamesUnmeasuredFigures(t *testing.T) {
	base, _, _, _ := compareDocs(t)
	if got := CompareHeadline(analysis.Compare(base, base, analysis.DefaultCompareThresholds)); got != "no regression" {
		t.Errorf("a run against itself: %q; want \"no regression\"", got)
	}
	cand := base
	cand.Amplification.Measured, cand.Amplification.MeasuredLo, cand.Amplification.MeasuredHi = nil, nil, nil
	c := analysis.Compare(base, cand, analysis.DefaultCompareThresholds)
	got := CompareHeadline(c)
	if c.Regressed || !strings.HasPrefix(got, "no regression; not compared: ") || !strings.Contains(got, "(not measured in the candidate)") {
		t.Errorf("A_fail unmeasured in the candidate: %q (regressed %v)", got, c.Regressed)
	}
}
