package report

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/trigger-test/trigger/analysis"
)

func renderHTML(t *testing.T, doc analysis.Document, rows []analysis.TimelineRow) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, doc, rows); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The page holds what a person needs: verdict against prediction, the
// chart inline with every series, the gate, the estimates, the findings,
// the amplification by layer, the trigger check, the files.
func TestHTMLContent(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string
	}{
		// recovers.hcl: recovered in 55 s against 67 s predicted, gate passed.
		{"recovered", []string{"recovered after 55.0 s (predicted 67.3 s)", "✓ gate passed", "67.3 s",
			"recovered in 55.0 s, within the budget of 2 min 00 s", "recovered in 55.0 s; the model's formula at the measured A_fail and ρ gives 64.7 s",
			"Hidden factor A_fail / A_client", "1.01", "<td>client</td>", "×3", "Spike is a trigger", "2.5 s",
			`<a href="result.json">`, `<a href="junit.xml">`, "Recovery time", "from measured A_fail and ρ the formula gives 64.7 s"}},
		// trapped.hcl: trapped, gate failed, on_trap ran.
		{"trapped", []string{"trapped (judged 7.0 s after the spike)", "✗ gate failed", "never (trapped)",
			"trapped: the service stayed failed after demand returned to normal", "on_trap drop started 11.0 s after the spike ended",
			"13259 requests were served after their client had given up", "A·ρ = 1.20 ≥ 1"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			doc, rows := loadFixture(t, tc.fixture)
			page := renderHTML(t, doc, splitFirstFailures(rows))
			text := html.UnescapeString(page)
			for _, s := range tc.want {
				if !strings.Contains(text, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			if !strings.Contains(page, `<svg class="chart" role="img"`) {
				t.Error("the chart is not inline SVG")
			}
			for _, c := range []string{SeriesSent, SeriesAttempts, SeriesOK, SeriesTimeouts, SeriesErrors, SeriesConnect, SeriesIngress, SeriesWait, SeriesTimeout, SeriesVerdict} {
				if !strings.Contains(page, `class="`+seriesClassPrefix+c+`"`) {
					t.Errorf("series %s missing from the inline chart", c)
				}
			}
			checkWellFormed(t, page)
		})
	}
}

// externalRef finds attributes that load or link something.
var externalRef = regexp.MustCompile(`(?i)\b(src|href|xlink:href|action|poster|srcset|data)\s*=\s*["']?([^"'\s>]*)`)

// The page works offline: no script, no stylesheet or font from elsewhere,
// no src or href leaving the run's folder, not even a namespace URL.
func TestHTMLSelfContained(t *testing.T) {
	for _, name := range fixtures {
		doc, rows := loadFixture(t, name)
		page := renderHTML(t, doc, rows)
		for _, m := range externalRef.FindAllStringSubmatch(page, -1) {
			v := strings.ToLower(m[2])
			if strings.Contains(v, "://") || strings.HasPrefix(v, "//") || strings.HasPrefix(v, "javascript:") {
				t.Errorf("%s: external reference %s=%q", name, m[1], m[2])
			}
		}
		for _, bad := range []string{"http://", "https://", "<script", "<link", "@import", "url(", "<iframe", "<object", "<embed"} {
			if strings.Contains(strings.ToLower(page), bad) {
				t.Errorf("%s: page contains %q", name, bad)
			}
		}
	}
}

// Text from the scenario is escaped everywhere it appears.
func TestHTMLEscapes(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	doc.Scenario.Name = `<script>alert("pwned")</script>`
	doc.Scenario.Description = `<img src=x onerror=alert(1)>`
	doc.Observation.Findings = append(doc.Observation.Findings, `</li><script>evil()</script>`)
	doc.Gate.Criteria[0].Detail = `<b onclick="x()">bold</b>`
	page := renderHTML(t, doc, rows)
	for _, bad := range []string{"<script", "<img", "<b onclick", "</li><script"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains unescaped %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;") {
		t.Error("escaped scenario name missing from the page")
	}
	checkWellFormed(t, page)
}

// A chart that cannot be drawn leaves a note; the rest of the page stays.
func TestHTMLWithoutChart(t *testing.T) {
	doc, _ := loadFixture(t, "recovered")
	var buf bytes.Buffer
	if err := writeHTML(&buf, doc, nil, errors.New("chart: boom"), ""); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "The chart could not be drawn: chart: boom") || strings.Contains(page, "<svg") {
		t.Error("the chart's failure is not shown in its place")
	}
	if !strings.Contains(page, "Measured vs predicted") {
		t.Error("the rest of the page is missing")
	}
}

// Documents with little in them render: a plan (no observation) and a run
// interrupted before its spike.
func TestHTMLSparseDocuments(t *testing.T) {
	plan := analysis.Plan(analysis.PlanInputs{
		Scenario: analysis.ScenarioSection{Name: "p", DemandPerS: 50, CapacityPerS: 200, Multiplier: 5, SpikeS: 10, WarmupS: 20, ObserveS: 60, TimeoutS: 1},
		Layers:   []analysis.RetryLayer{{Name: "client", MaxRetries: 2}},
	})
	interrupted := analysis.Document{Kind: "run", Scenario: analysis.ScenarioSection{Name: "cut"}, Verdict: analysis.VerdictNoTrigger,
		Observation: &analysis.Observation{Source: "run", Interrupted: true, EndS: 3, VerdictReason: "interrupted before a verdict"},
		Gate:        analysis.EvaluateGate(analysis.GateSpec{}, analysis.VerdictNoTrigger, 0, 0, 0)}
	for _, tc := range []struct {
		name string
		doc  analysis.Document
		want string
	}{
		{"plan", plan, "Plan “p”"},                              // no observation at all
		{"interrupted", interrupted, "The run was interrupted"}, // no spike, no rows
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := renderHTML(t, tc.doc, nil)
			if !strings.Contains(html.UnescapeString(page), tc.want) {
				t.Errorf("page lacks %q", tc.want)
			}
			checkWellFormed(t, page)
		})
	}
}

// checkWellFormed tokenizes the page as a browser would and checks that
// every element opened in the body is closed in order.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	void := map[string]bool{"meta": true, "br": true, "img": true, "hr": true, "input": true, "link": true}
	var stack []string
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			if len(stack) != 0 {
				t.Errorf("unclosed elements at the end: %v", stack)
			}
			return
		case html.StartTagToken:
			name, _ := z.TagName()
			if !void[string(name)] {
				stack = append(stack, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// A run judged on ingress − served behind a proxy: the page names the
// wait's source, reason and delay, the patience, the Prometheus signals'
// delays, the intervals of A_fail, the slope and the estimates, the failed
// first attempts by class; its chart draws the settled moment and the
// patience.
func TestHTMLJudgedWait(t *testing.T) {
	doc, rows := ingressServedDoc(t)
	page := renderHTML(t, doc, rows)
	text := html.UnescapeString(page)
	for _, s := range []string{
		"<h2>Wait signal</h2>",
		"<td>the backlog from ingress − served (ingress-served): the scenario has no wait query, and no tracer was answered by the service</td>",
		"<td>3.0 s (the samples before still carried the spike and were not judged)</td>",
		`<td>300 ms, layer "proxy"'s per-try timeout; shorter than the client timeout τ_out = 1.0 s</td>`,
		"<td>7.0 s after the spike's end (3.0 s of delay, then 4 samples one second apart)</td>",
		`<tr><td>ingress</td><td class="num">2.0 s</td><td>1.0 s (the embedded Prometheus)</td><td class="num">3.0 s</td></tr>`,
		`<tr><td>served</td><td class="num">2.0 s, offset 1.0 s</td><td>1.0 s</td><td class="num">3.0 s</td></tr>`,
		`<td class="num">3 (2.91–3.1)</td>`,                 // A_fail, amplification table and estimates
		`<td class="num">80.6/s (79.2/s–82.1/s)</td>`,       // an estimate in its unit
		`<td class="num">0.17 s/s (0.13 s/s–0.21 s/s)</td>`, // the judged slope in the summary
		"4453: 0 timed out, 4400 with an error status, 53 connection refused or reset",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// The slope is shown once: in the summary, not again among the wait's facts.
	if n := strings.Count(text, "0.17 s/s (0.13 s/s–0.21 s/s)"); n != 1 {
		t.Errorf("the judged slope is shown %d times", n)
	}
	for _, c := range []string{SeriesWait, SeriesSettled, SeriesPatience, SeriesErrors} {
		if !strings.Contains(page, `class="`+seriesClassPrefix+c+`"`) {
			t.Errorf("series %s missing from the inline chart", c)
		}
	}
	checkWellFormed(t, page)
}

// A run that says nothing about its wait signal has no such section.
func TestHTMLNoWaitSection(t *testing.T) {
	doc, rows := loadFixture(t, "recovered")
	doc.Observation.WaitSource = ""
	if page := renderHTML(t, doc, rows); strings.Contains(page, `id="wait"`) {
		t.Error("a wait section without anything in it")
	}
}

// A mix's requests get their table in the page; a single request none.
func TestHTMLRequestsTable(t *testing.T) {
	for _, mix := range []bool{true, false} {
		doc := mixDoc(t)
		if !mix {
			doc.Observation.Requests = nil
		}
		var buf bytes.Buffer
		if err := WriteHTML(&buf, doc, nil); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		has := strings.Contains(page, `<section id="requests">`)
		if has != mix || mix && !strings.Contains(page, `<td>quote</td><td class="num">79.7 % (80.0 %)</td><td class="num">7970</td><td class="num">95.4 %</td>`) {
			t.Errorf("mix %v: requests section %v in\n%s", mix, has, page[strings.Index(page, "<body"):][:min(3000, len(page)-strings.Index(page, "<body"))])
		}
	}
}
