package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// secretFault is a scenario whose fault hands a sensitive variable to its
// commands through env; each command writes what it got in TOKEN to
// seen-start or seen-stop in the scenario's folder, and echoes it on its
// output (which goes to fault.log).
const secretFault = `
variable "token" {
  default   = "unused"
  sensitive = true
}
scenario "s" {}
target {
  url         = "http://127.0.0.1:9/"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = 100 }
load { baseline = 10 }
fault "f" {
  start    = ["sh", "-c", "printf %s \"$TOKEN\" > seen-start; echo \"the token is $TOKEN\"; echo \"$TOKEN\" >&2"]
  stop     = ["sh", "-c", "printf %s \"$TOKEN\" > seen-stop; echo \"the token is $TOKEN\""]
  env      = { TOKEN = var.token, MODE = "half" }
  duration = "5s"
  capacity = 0.5
}
`

// A sensitive value handed to a fault's commands through env reaches
// them, and nothing the run writes holds it: not fault.log (the
// commands' output that echoes it is redacted, the header names TOKEN
// only), not the journal, not the pending-fault registry.
func TestSecretsReachCommandsOnlyByEnvironment(t *testing.T) {
	const secret = "tok-5e9b1d77"
	dir, out, state := t.TempDir(), t.TempDir(), t.TempDir()
	s, err := scenarios.Parse(filepath.Join(dir, "s.hcl"), []byte(secretFault), map[string]string{"token": secret})
	if err != nil {
		t.Fatal(err)
	}
	test, err := convert.New(s)
	if err != nil {
		t.Fatal(err)
	}
	fr := newFaultRun(*test.Run.Fault, out, state, t.Logf)
	fr.red = newRedactor(test.Run.Secrets)
	if err := fr.start(); err != nil {
		t.Fatal(err)
	}
	journal, _ := os.ReadFile(filepath.Join(out, FaultJournalFile))
	if !strings.Contains(string(journal), `"TOKEN"`) {
		t.Errorf("the journal does not name TOKEN:\n%s", journal)
	}
	var registry []byte
	entries, _ := os.ReadDir(filepath.Join(state, "pending-faults"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(state, "pending-faults", e.Name()))
		registry = append(registry, b...)
	}
	if len(registry) == 0 {
		t.Fatal("no registry entry")
	}
	if err := fr.stop("test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"seen-start", "seen-stop"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != secret {
			t.Errorf("%s: the command got TOKEN=%q; want the secret", f, b)
		}
	}
	log, _ := os.ReadFile(filepath.Join(out, faultLogFile))
	if !strings.Contains(string(log), "the token is "+scenarios.SensitiveValue) || !strings.Contains(string(log), "(environment: MODE, TOKEN)") {
		t.Errorf("fault.log does not show the output redacted and the env's names:\n%s", log)
	}
	journal2, _ := os.ReadFile(filepath.Join(out, FaultJournalFile))
	for where, text := range map[string][]byte{"fault.log": log, "the journal": journal, "the journal after the stop": journal2, "the registry": registry} {
		if strings.Contains(string(text), secret) {
			t.Errorf("%s holds the secret:\n%s", where, text)
		}
	}
}
