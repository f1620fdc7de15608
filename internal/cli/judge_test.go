package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// trigger judge prints a recorded run as run did and exits as run did;
// a tighter --max-recovery fails the gate (exit 1) without changing the
// figures; --out writes the judged folder; a folder recorded without the
// referee's inputs is refused (exit 2).
func TestJudgeCommand(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dir := filepath.Join(root, "runner", "testdata", "runs", "recovered")
	run := func(t *testing.T, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, stderr := run(t, "judge", dir)
	if code != ExitPassed || !strings.Contains(out, "RECOVERED") {
		t.Fatalf("judge: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, _ = run(t, "judge", "--json", dir)
	var doc analysis.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitPassed {
		t.Fatalf("--json: exit %d, %v", code, err)
	}
	recovery := analysis.Value(doc.RecoveryS)
	outDir := filepath.Join(t.TempDir(), "judged")
	code, out, _ = run(t, "judge", "--json", "--max-recovery", "5", "--out", outDir, dir)
	var tight analysis.Document
	if err := json.Unmarshal([]byte(out), &tight); err != nil || code != ExitGateFailed {
		t.Fatalf("--max-recovery 5: exit %d, %v; want %d", code, err, ExitGateFailed)
	}
	if tight.Gate.Passed || analysis.Value(tight.RecoveryS) != recovery || analysis.Value(tight.Amplification.Measured) != analysis.Value(doc.Amplification.Measured) {
		t.Errorf("under a 5 s budget: gate passed %v, recovery %v (was %v)", tight.Gate.Passed, analysis.Value(tight.RecoveryS), recovery)
	}
	for _, name := range []string{"result.json", "timeline.csv", "report.html", "report.md", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(outDir, name)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	if code, _, stderr := run(t, "judge", filepath.Join(root, "runner", "report", "testdata", "golden")); code != ExitUsage {
		t.Errorf("a folder that is no run's: exit %d (%s)", code, stderr)
	}
}
