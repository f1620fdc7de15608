package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// The pull-request comment of each real run, against its golden file;
// and of a run with every field the judged wait adds (ingressServedDoc):
// intervals, the wait's source, reason and delay, the patience, the
// Prometheus signals, the failed first attempts by class.
func TestMarkdownGolden(t *testing.T) {
	for _, name := range append(append([]string(nil), fixtures...), "ingress-served", "mix") {
		t.Run(name, func(t *testing.T) {
			var doc analysis.Document
			switch name {
			case "ingress-served":
				doc, _ = ingressServedDoc(t)
			case "mix":
				doc = mixDoc(t)
			default:
				doc, _ = loadFixture(t, name)
			}
			var buf bytes.Buffer
			if err := WriteMarkdown(&buf, doc); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".md", buf.Bytes())
		})
	}
}

// mixDoc is the recovered run as if its target had a mix of two requests:
// what observation.requests adds to the reports.
func mixDoc(t *testing.T) analysis.Document {
	doc, _ := loadFixture(t, "recovered")
	doc.Observation.Requests = []analysis.RequestResult{
		{Name: "quote", Weight: 8, ExpectedShare: 0.8, Share: 0.797, FirstSent: 7970, FirstOK: 7600, FirstFailed: 370, SuccessRatio: 7600.0 / 7970,
			FirstTimeouts: 300, FirstErrors: 70, FirstClientErrors: 12},
		{Name: "search", Weight: 2, ExpectedShare: 0.2, Share: 0.203, FirstSent: 2030, FirstOK: 2030, SuccessRatio: 1},
	}
	return doc
}

// The headline carries the gate's mark, and each criterion its own.
func TestMarkdownMarks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fixture string
		edit    func(*analysis.Document)
		want    []string
		not     []string
	}{
		// A passed gate: ✅ in the headline and on every criterion.
		{"passed", "recovered", func(*analysis.Document) {},
			[]string{"## ✅ Trigger test “recovers”: recovered after 55.0 s (predicted 67.3 s), gate passed", "- ✅ **recovery**: recovered in 55.0 s"},
			[]string{"❌"}},
		// A failed gate: ❌ in the headline and on the failed criterion only.
		{"failed", "trapped", func(*analysis.Document) {},
			[]string{"## ❌ Trigger test “trapped”: trapped", "- ✅ **trigger**", "- ❌ **trap**: trapped:", "| Recovery after the spike | never (trapped) | never (trapped) |"},
			nil},
		// A gate that was never evaluated is not a pass.
		{"no criteria", "recovered", func(d *analysis.Document) { d.Gate = analysis.GateResult{Passed: true} },
			[]string{"## ❌ ", "gate not evaluated", "- ❌ the gate was not evaluated"},
			[]string{"✅"}},
		// An interrupted run says so before the numbers.
		{"interrupted", "recovered", func(d *analysis.Document) { d.Observation.Interrupted = true },
			[]string{"> ⚠️ The run was interrupted"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := loadFixture(t, tc.fixture)
			tc.edit(&doc)
			var buf bytes.Buffer
			if err := WriteMarkdown(&buf, doc); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.want {
				if !strings.Contains(buf.String(), s) {
					t.Errorf("missing %q in\n%s", s, buf.String())
				}
			}
			for _, s := range tc.not {
				if strings.Contains(buf.String(), s) {
					t.Errorf("unexpected %q in\n%s", s, buf.String())
				}
			}
		})
	}
}

// Text from the scenario cannot inject HTML or break the tables.
func TestMarkdownEscapes(t *testing.T) {
	doc, _ := loadFixture(t, "recovered")
	doc.Scenario.Name = "<script>alert(1)</script>"
	doc.Observation.Findings = []string{"a | b\nc *d* [e](http://x) `f`"}
	doc.Observation.Estimates[0].Label = "pipe | in a label"
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, doc); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script>", "a | b", "\nc *d*", "[e](http://x)", "pipe | in"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q in\n%s", bad, out)
		}
	}
	for _, good := range []string{"&lt;script&gt;", `a \| b c \*d\* \[e\](http://x) \` + "`f\\`", `pipe \| in a label`} {
		if !strings.Contains(out, good) {
			t.Errorf("missing %q in\n%s", good, out)
		}
	}
	// Every table row still has its columns: 4 unescaped pipes per row
	// of the two-column-plus-label table, 5 in the estimates table.
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if n != 4 && n != 5 {
			t.Errorf("table row with %d cell borders: %s", n, line)
		}
	}
}
