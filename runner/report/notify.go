package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// MaxNotifyBytes bounds the webhook's message: Slack takes 40,000
// characters of text; a scenario with long failure details is cut well
// before that.
const MaxNotifyBytes = 16 << 10

// NotifyMessage is the Slack-compatible message a run posts to its
// notify webhook when it ends: "text" (the one-line summary, what a
// client that knows no blocks shows) and "blocks" (a header line, the key
// figures as fields, and the paths of the report and result in dir that
// the run wrote, written naming them). Every text is
// at most a few hundred characters; the whole is within MaxNotifyBytes.
func NotifyMessage(doc analysis.Document, dir string, written []string) ([]byte, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	gate := "gate not evaluated"
	switch {
	case len(doc.Gate.Criteria) > 0 && doc.Gate.Passed:
		gate = "gate passed"
	case doc.Gate.OnlyNotJudged():
		gate = "gate not judged (max_trap_probability takes repeated trials)"
	case len(doc.Gate.Criteria) > 0:
		var failed []string
		for _, c := range doc.Gate.Criteria {
			if !c.Passed {
				failed = append(failed, c.Name)
			}
		}
		gate = "gate failed (" + strings.Join(failed, ", ") + ")"
	}
	mark := "✅"
	if !doc.Gate.Passed {
		mark = "❌"
	}
	summary := fmt.Sprintf("%s trigger “%s”: %s; %s", mark, cut(scenarioName(doc), 80), verdictHeadline(doc), gate)
	report := filepath.Join(dir, HTMLFile)

	fields := []string{
		"*Verdict*\n" + string(doc.Verdict),
		"*Gate*\n" + gate,
		"*Recovery*\n" + notifyRecovery(doc),
		"*A_fail*\n" + aFailMeasured(doc.Amplification),
	}
	if o := doc.Observation; o != nil {
		fields = append(fields, "*Peak wait*\n"+secPtr(o.PeakWaitS), "*Requests failed*\n"+numPtr(o.FailedRequests))
	}
	var gateLines []string
	for _, f := range doc.Gate.Failures {
		gateLines = append(gateLines, "• "+cut(f, 300))
		if len(gateLines) == 5 {
			break
		}
	}
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type block struct {
		Type   string `json:"type"`
		Text   *text  `json:"text,omitempty"`
		Fields []text `json:"fields,omitempty"`
	}
	blocks := []block{{Type: "section", Text: &text{"mrkdwn", slackEscape(summary)}}}
	var fs []text
	for _, f := range fields {
		fs = append(fs, text{"mrkdwn", slackEscape(f)})
	}
	blocks = append(blocks, block{Type: "section", Fields: fs})
	if len(gateLines) > 0 {
		blocks = append(blocks, block{Type: "section", Text: &text{"mrkdwn", slackEscape(strings.Join(gateLines, "\n"))}})
	}
	// Only files the run wrote are named (written: names in dir).
	headline := summary + " — " + report
	var files []string
	for _, f := range []struct{ label, name string }{{"Report", HTMLFile}, {"Result", ResultFile}} {
		switch {
		case slices.Contains(written, f.name):
			files = append(files, f.label+": "+filepath.Join(dir, f.name))
		default:
			files = append(files, f.label+": not written (the run's log says why)")
			if f.name == HTMLFile {
				headline = summary
			}
		}
	}
	blocks = append(blocks, block{Type: "section", Text: &text{"mrkdwn", slackEscape(strings.Join(files, "\n"))}})
	msg := struct {
		Text   string  `json:"text"`
		Blocks []block `json:"blocks"`
	}{Text: slackEscape(headline), Blocks: blocks}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // Slack reads &lt; as mrkdwn's, not \u0026lt;
	if err := enc.Encode(msg); err != nil {
		return nil, fmt.Errorf("notify: %w", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > MaxNotifyBytes {
		return nil, fmt.Errorf("notify: the message is %d bytes, more than %d", len(b), MaxNotifyBytes)
	}
	return b, nil
}

// notifyRecovery is the measured recovery, or why there is none.
func notifyRecovery(doc analysis.Document) string {
	if doc.RecoveryS != nil {
		return analysis.FormatSeconds(*doc.RecoveryS) + " after the spike"
	}
	if doc.Verdict == "" {
		return unknown
	}
	return "none (" + string(doc.Verdict) + ")"
}

// slackEscape escapes the three characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// cut shortens s to at most n runes, with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
