package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// run calls Main from the repository root, so paths in outputs read as a
// user would type them.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir("../..")
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./internal/cli -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// shipped is each shipped scenario with the exit code and verdict that
// the plan and both models give it.
var shipped = []struct {
	name    string
	code    int
	verdict analysis.Verdict
}{
	{"recovers", ExitPassed, analysis.VerdictRecovered},         // A·ρ = 0.75
	{"trapped", ExitGateFailed, analysis.VerdictTrapped},        // A·ρ = 1.2
	{"no-trigger", ExitInconclusive, analysis.VerdictNoTrigger}, // k·ρ = 0.75
	{"gateway-budget", ExitPassed, analysis.VerdictRecovered},   // hidden gateway ×3 behind a budget
}

// decode decodes the JSON document a command printed, failing t with the
// command's exit code and output when it is none.
func decode[T any](t *testing.T, code int, stdout, stderr string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("exit %d: not a JSON document: %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	return v
}

// Each shipped scenario: plan exits as the gate would, and the --json
// document is pinned.
func TestPlanShippedScenarios(t *testing.T) {
	for _, tc := range shipped {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "plan", "--json", "scenarios/"+tc.name+".hcl")
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			doc := decode[analysis.Document](t, code, stdout, stderr)
			if doc.Kind != "plan" || doc.Verdict != tc.verdict {
				t.Errorf("kind %q verdict %q, want plan and %q", doc.Kind, doc.Verdict, tc.verdict)
			}
			t.Chdir("internal/cli")
			golden(t, "plan-"+tc.name+".json", stdout)
		})
	}
}

// The text form of plan, pinned for one scenario of each verdict.
func TestPlanText(t *testing.T) {
	for _, name := range []string{"recovers", "trapped", "no-trigger"} {
		t.Run(name, func(t *testing.T) {
			_, stdout, _ := run(t, "plan", "scenarios/"+name+".hcl")
			t.Chdir("internal/cli")
			golden(t, "plan-"+name+".txt", stdout)
		})
	}
}

// A broken scenario: exit 2, every problem with file:line:col, nothing on stdout.
func TestPlanBrokenScenario(t *testing.T) {
	code, stdout, stderr := run(t, "plan", "internal/cli/testdata/broken.hcl")
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout should be empty, got:\n%s", stdout)
	}
	// Every diagnostic names its place.
	places := regexp.MustCompile(`on internal/cli/testdata/broken\.hcl line \d+`).FindAllString(stderr, -1)
	if len(places) < 5 {
		t.Errorf("want at least 5 located problems, got %d:\n%s", len(places), stderr)
	}
	// ... and ends with one file:line:col line per problem, for editors and CI.
	index := regexp.MustCompile(`(?m)^internal/cli/testdata/broken\.hcl:\d+:\d+: error: .+$`).FindAllString(stderr, -1)
	if len(index) != len(places) {
		t.Errorf("want one file:line:col line per problem (%d), got %d", len(places), len(index))
	}
	for _, want := range []string{"Did you mean \"timeout\"?", "multiplier", "allow_hosts", "jitter", "budget"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("diagnostics do not mention %q:\n%s", want, stderr)
		}
	}
	t.Chdir("internal/cli")
	golden(t, "plan-broken.stderr", stderr)
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no scenario", []string{"plan"}, ExitUsage, "accepts 1 arg"},
		{"unknown flag", []string{"plan", "--nope", "x.hcl"}, ExitUsage, "unknown flag"},
		{"unknown command", []string{"fly"}, ExitUsage, "unknown command"},
		{"missing file", []string{"plan", "scenarios/absent.hcl"}, ExitUsage, "absent.hcl"},
		{"bad var", []string{"plan", "--var", "novalue", "scenarios/recovers.hcl"}, ExitUsage, "--var"},
		{"undeclared var", []string{"plan", "--var", "basline=5", "scenarios/gateway-budget.hcl"}, ExitUsage, "baseline"},
		{"unknown model", []string{"simulate", "--model", "quantum", "scenarios/recovers.hcl"}, ExitUsage, "quantum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// --var overrides reach the model: a larger baseline traps the gateway scenario.
func TestPlanVariables(t *testing.T) {
	code, stdout, stderr := run(t, "plan", "--json", "--var", "baseline=70", "scenarios/gateway-budget.hcl")
	doc := decode[analysis.Document](t, code, stdout, stderr)
	if doc.Scenario.DemandPerS != 70 || doc.Verdict != analysis.VerdictTrapped || code != ExitGateFailed {
		t.Errorf("λ = %v verdict %s exit %d; want 70, trapped (A·ρ = 1.26), exit 1", doc.Scenario.DemandPerS, doc.Verdict, code)
	}
}

// simulate runs the fluid model: verdicts agree with the plan, the JSON
// carries the timeline, and the text shows one.
func TestSimulateFluid(t *testing.T) {
	for _, tc := range shipped {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "simulate", "--json", "scenarios/"+tc.name+".hcl")
			doc := decode[analysis.Document](t, code, stdout, stderr)
			if code != tc.code || doc.Verdict != tc.verdict || doc.Model != "fluid" || len(doc.Timeline) < 100 || doc.Observation == nil {
				t.Errorf("exit %d verdict %s model %q timeline %d; want exit %d, %s", code, doc.Verdict, doc.Model, len(doc.Timeline), tc.code, tc.verdict)
			}
		})
	}
	_, stdout, _ := run(t, "simulate", "scenarios/recovers.hcl")
	if !strings.Contains(stdout, "Timeline (every") || !strings.Contains(stdout, "wait ▁") {
		t.Errorf("text output has no timeline:\n%s", stdout)
	}
}

// run refuses to overload anything without confirmation when there is no
// terminal to ask on (tests, CI) and no --yes; nothing is sent.
func TestRunNeedsConfirmation(t *testing.T) {
	code, stdout, stderr := run(t, "run", "scenarios/recovers.hcl")
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--yes") {
		t.Errorf("exit %d stdout %q stderr %q; want exit 2 asking for --yes", code, stdout, stderr)
	}
}

// import writes a skeleton that plan reads (its credentials given as
// variables), never overwrites --out, and refuses an unknown format or an
// unreadable recording with exit 2.
func TestImportWritesAPlannableSkeleton(t *testing.T) {
	out := filepath.Join(t.TempDir(), "checkout.hcl")
	har, err := filepath.Abs("../../importer/testdata/checkout.har")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "import", "har", har, "--out", out); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "plan", "--var", "authorization=Bearer x", "--var", "cookie=c", out)
	if code == ExitUsage || !strings.Contains(stdout, "post-quote 60 %") {
		t.Errorf("plan of the skeleton: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "import", "har", har, "--out", out); code != ExitUsage || !strings.Contains(stderr, "never overwritten") {
		t.Errorf("a second import over --out: exit %d: %s", code, stderr)
	}
	if code, _, _ := run(t, "import", "curl", "x"); code != ExitUsage {
		t.Errorf("unknown format: exit %d", code)
	}
	if code, _, _ := run(t, "import", "vegeta", filepath.Join(t.TempDir(), "missing")); code != ExitUsage {
		t.Errorf("missing file: exit %d", code)
	}
}

// campaign --dry-run prints the cells planned and the longest the
// campaign can take, sending nothing; a scenario without a campaign block
// and a campaign without --yes off a terminal are usage errors.
func TestCampaignCommand(t *testing.T) {
	t.Run("dry-run", func(t *testing.T) {
		code, out, errb := run(t, "campaign", "--dry-run", "examples/campaign.hcl")
		if code != ExitPassed {
			t.Fatalf("exit %d: %s", code, errb)
		}
		t.Chdir("internal/cli")
		golden(t, "campaign-dry-run.txt", out)
	})
	// --dry-run lists what the cells do besides their load as plan does:
	// a capacity search's commands, with the value they are shown with
	// (issue 32).
	t.Run("dry-run lists the commands", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "capacity.hcl")
		src := `
variable "factor" { default = 0.25 }
scenario "capacity" {}
target {
  url         = "http://127.0.0.1:9/work"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "500ms" }
service { capacity = 200 }
load {
  baseline = 80
  warmup   = "3s"
  observe  = "10s"
}
fault "slow-pods" {
  start    = ["sh", "-c", "echo capacity ${var.factor}"]
  stop     = ["true"]
  duration = "5s"
  capacity = var.factor
}
campaign {
  baselines         = [0.4]
  search            = "capacity"
  capacity_variable = "factor"
  from              = 0.3
  to                = 0.9
}
`
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := run(t, "campaign", "--dry-run", f)
		if code != ExitPassed {
			t.Fatalf("exit %d: %s", code, errb)
		}
		for _, want := range []string{"Besides its load, a run of this scenario:", `runs           fault "slow-pods" start: sh -c 'echo capacity 0.25'`,
			"A run executes these commands only with --allow-commands.", "The commands are shown with factor = 0.25"} {
			if !strings.Contains(out, want) {
				t.Errorf("--dry-run lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("no campaign block", func(t *testing.T) {
		code, _, errb := run(t, "campaign", "--dry-run", "scenarios/recovers.hcl")
		if code != ExitUsage || !strings.Contains(errb, "has no campaign block") {
			t.Errorf("exit %d: %s", code, errb)
		}
	})
	t.Run("confirmation", func(t *testing.T) {
		code, _, errb := run(t, "campaign", "--out", t.TempDir(), "examples/campaign.hcl")
		if code != ExitUsage || !strings.Contains(errb, "--yes") {
			t.Errorf("exit %d: %s", code, errb)
		}
	})
}

// A fault too small to trigger (C′ = 0.9·C at ρ = 0.4): plan says no
// trigger and exits 3 as simulate does, never "Gate passed" (issue 32,
// finding 11).
func TestPlanFaultThatCannotTrigger(t *testing.T) {
	src, err := os.ReadFile("../../examples/demo-fault.hcl")
	if err != nil {
		t.Fatal(err)
	}
	weak := strings.Replace(string(src), "capacity = 0.25", "capacity = 0.9", 1)
	if weak == string(src) {
		t.Fatal("demo-fault.hcl has no capacity = 0.25 to change")
	}
	path := filepath.Join(t.TempDir(), "weak-fault.hcl")
	if err := os.WriteFile(path, []byte(weak), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "plan", path)
	if code != ExitInconclusive {
		t.Errorf("plan: exit %d, want %d; stderr:\n%s", code, ExitInconclusive, stderr)
	}
	if !strings.Contains(stdout, "Trigger") || !strings.Contains(stdout, "NO:") {
		t.Errorf("plan does not say the fault cannot trigger:\n%s", stdout)
	}
	if strings.Contains(stdout, "passed") {
		t.Errorf("plan of a fault that cannot trigger says the gate passed:\n%s", stdout)
	}
	code, stdout, stderr = run(t, "plan", "--json", path)
	if doc := decode[analysis.Document](t, code, stdout, stderr); doc.Verdict != analysis.VerdictNoTrigger || doc.Gate.Passed {
		t.Errorf("plan --json: verdict %q gate passed %v, want %q and not passed", doc.Verdict, doc.Gate.Passed, analysis.VerdictNoTrigger)
	}
	code, _, stderr = run(t, "simulate", path)
	if code != ExitInconclusive {
		t.Errorf("simulate: exit %d, want %d; stderr:\n%s", code, ExitInconclusive, stderr)
	}
}

// import har says on stderr which query parameters it dropped as
// credentials, and writes none of their values (issue 32, finding 12).
func TestImportHARDropsSessionTokens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.har")
	har := `{"log":{"entries":[{"request":{"method":"GET","url":"https://shop.example/v1/cart?session=s3ss10n-v4lue&id=7&access_token=4cc355","headers":[]}}]}}`
	if err := os.WriteFile(path, []byte(har), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "import", "har", path)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if strings.Contains(stdout, "s3ss10n-v4lue") || strings.Contains(stdout, "4cc355") {
		t.Errorf("the skeleton holds a session or token value:\n%s", stdout)
	}
	if !strings.Contains(stderr, "access_token, session") {
		t.Errorf("stderr does not name the dropped parameters:\n%s", stderr)
	}
}
