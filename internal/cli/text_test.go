package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/runner/report"
)

// The terminal's summary of a run says, under its title and file, when
// the run started (to the second, UTC), its target and the trigger that
// ran it, as the document records them; "–" for what a document made
// before a field was recorded does not say.
func TestPrintDocumentPlacesTheRun(t *testing.T) {
	doc, err := report.ReadResult(filepath.Join("..", "..", "runner", "testdata", "runs", "cli-trapped", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339Nano, doc.Observation.StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	started := at.UTC().Format("2006-01-02 15:04:05") + " UTC"
	for _, tc := range []struct{ version, want string }{
		{"v1.4.2", "v1.4.2"},
		{"", "–"},
	} {
		doc.TriggerVersion = tc.version
		var buf bytes.Buffer
		if err := printDocument(&buf, doc); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(buf.String(), "\n")
		want := "Started: " + started + " · Target: " + doc.Scenario.Target + " · trigger version: " + tc.want
		if len(lines) < 3 || lines[2] != want {
			t.Errorf("the third line is %q, want %q", lines[min(2, len(lines)-1)], want)
		}
	}
}
