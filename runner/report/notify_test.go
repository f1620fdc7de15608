package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The webhook's message for a trapped run against a golden file, and
// what a Slack client reads of it: the text names the scenario, the
// verdict, the gate's failed criteria and the report; the blocks are
// sections of mrkdwn, the figures fields.
func TestNotifyMessage(t *testing.T) {
	doc, _ := loadFixture(t, "trapped")
	b, err := NotifyMessage(doc, "/runs/out/trapped-1", []string{HTMLFile, ResultFile})
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden(t, "notify-trapped.json", pretty.Bytes())
	var msg struct {
		Text   string
		Blocks []struct {
			Type   string
			Text   *struct{ Type, Text string }
			Fields []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"trapped", "gate failed", "/runs/out/trapped-1/report.html"} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("text %q has no %q", msg.Text, want)
		}
	}
	fields := 0
	for _, bl := range msg.Blocks {
		if bl.Type != "section" {
			t.Errorf("block of type %q", bl.Type)
		}
		fields += len(bl.Fields)
	}
	if fields < 4 || len(msg.Blocks) < 3 {
		t.Errorf("%d blocks, %d fields", len(msg.Blocks), fields)
	}
}

// A report the run could not write (a full disk) is not named as if it
// were there: the message says it was not written.
func TestNotifyMessageNamesOnlyWrittenFiles(t *testing.T) {
	doc, _ := loadFixture(t, "trapped")
	b, err := NotifyMessage(doc, "/runs/out/trapped-1", []string{ResultFile})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(HTMLFile)) {
		t.Errorf("names %s, which was not written: %s", HTMLFile, b)
	}
	if !bytes.Contains(b, []byte("Report: not written")) || !bytes.Contains(b, []byte("/runs/out/trapped-1/"+ResultFile)) {
		t.Errorf("does not say the report was not written, or lacks the result: %s", b)
	}
}

// Text from the document is escaped for Slack's mrkdwn: a scenario name
// cannot mention a channel or break the message.
func TestNotifyMessageEscapes(t *testing.T) {
	doc, _ := loadFixture(t, "recovered")
	doc.Scenario.Name = "<!channel> & co"
	b, err := NotifyMessage(doc, "out", []string{HTMLFile, ResultFile})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("<!channel>")) || !bytes.Contains(b, []byte("&lt;!channel&gt; &amp; co")) {
		t.Errorf("not escaped: %s", b)
	}
}
