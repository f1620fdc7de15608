package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A phase name from a doctored result.json cannot inject markup or break
// the latency table: report.html and report.md escape it like any text
// of the document.
func TestLatencyTableEscapes(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	doc.Observation.LatencyByPhase = []analysis.PhaseLatency{{Phase: `<script>x()</script>|`}}
	page := renderHTML(t, doc, rows)
	if strings.Contains(page, "<script>x()") || !strings.Contains(page, "&lt;script&gt;x()&lt;/script&gt;|") {
		t.Error("report.html shows the phase's name unescaped")
	}
	checkWellFormed(t, page)
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `| &lt;script&gt;x()&lt;/script&gt;\| | 0 | – | – | – |`) {
		t.Errorf("report.md's latency row is not escaped:\n%s", buf.String())
	}
}
