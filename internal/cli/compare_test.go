package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare's exit codes on the reports' fixtures: a run against itself is
// 0, recovered against trapped 1 (the verdict regressed), two scenarios 3,
// a folder without result.json 2; --json and --junit write what they say.
func TestCompareCommand(t *testing.T) {
	fixtures := "runner/report/testdata"
	junit := filepath.Join(t.TempDir(), "compare.xml")
	other := filepath.Join(t.TempDir(), "result.json")
	// The recovered run's test, as a release that traps.
	trapped := filepath.Join(t.TempDir(), "result.json")
	writeVariant(t, "../../"+fixtures+"/recovered/result.json", trapped, func(doc map[string]any) {
		doc["verdict"], doc["recovery_s"] = "trapped", nil
	})
	writeVariant(t, "../../"+fixtures+"/recovered/result.json", other, func(doc map[string]any) {
		doc["scenario"].(map[string]any)["name"] = "another"
	})
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", fixtures + "/recovered", fixtures + "/recovered/result.json"}, 0, "no regression"},
		{[]string{"compare", "--junit", junit, fixtures + "/recovered", trapped}, 1, "REGRESSION: the verdict went from recovered to trapped"},
		{[]string{"compare", "--markdown", fixtures + "/recovered", trapped}, 1, "## ❌ trigger compare"},
		{[]string{"compare", fixtures + "/recovered", fixtures + "/trapped"}, 3, "different load: baseline λ 50 against 80"},
		{[]string{"compare", fixtures + "/recovered", other}, 3, "not comparable: different scenarios"},
		{[]string{"compare", fixtures, fixtures + "/trapped"}, 2, ""},
		{[]string{"compare", "--max-recovery-regression", "lots", fixtures + "/recovered", fixtures + "/trapped"}, 2, ""},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.want) {
				t.Errorf("%v: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, stdout, stderr)
			}
		})
	}
	b, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(b), `<testcase name="verdict" classname="trigger.compare" time="0">`) || !strings.Contains(string(b), "<failure") {
		t.Errorf("junit %v:\n%s", err, b)
	}
	t.Run("html", func(t *testing.T) {
		page := filepath.Join(t.TempDir(), "compare.html")
		code, _, stderr := run(t, "compare", "--html", page, fixtures+"/recovered", fixtures+"/recovered")
		b, err := os.ReadFile(page)
		if code != 0 || err != nil || !strings.Contains(string(b), "series-candidate-ok") || !strings.Contains(string(b), "✓ no regression") {
			t.Errorf("--html: exit %d, %v %s\n%s", code, err, stderr, b)
		}
	})
	t.Run("json", func(t *testing.T) {
		code, stdout, _ := run(t, "compare", "--json", fixtures+"/recovered", trapped)
		var c struct {
			Comparable, Regressed bool
			Figures               []struct{ Name string }
		}
		if err := json.Unmarshal([]byte(stdout), &c); err != nil || code != 1 || !c.Comparable || !c.Regressed || len(c.Figures) != 6 {
			t.Errorf("--json: exit %d, %v, %+v", code, err, c)
		}
	})
}

// writeVariant writes the result document at from, changed by change, to to.
func writeVariant(t *testing.T, from, to string, change func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	change(doc)
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// trigger prometheus refuses a folder without recorded data and a
// listen address off loopback, before opening anything.
func TestPrometheusCommandRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prometheus", t.TempDir()}, "holds no embedded Prometheus data"},
		{[]string{"prometheus", "--listen", "0.0.0.0:9090", t.TempDir()}, "not a loopback address"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, stderr)
		}
	}
}

// A difference that rounds to no percent reads "0 %", never "-0 %"; a
// figure neither run measured is "not measured in either run" in the text
// and a skipped case in JUnit, neither passed nor failed.
func TestCompareRoundsAndNamesUnmeasured(t *testing.T) {
	fixtures := "../../runner/report/testdata"
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "cand.json")
	junit := filepath.Join(dir, "compare.xml")
	var recovery float64
	writeVariant(t, fixtures+"/recovered/result.json", base, func(doc map[string]any) {
		recovery = doc["recovery_s"].(float64)
		doc["observation"].(map[string]any)["peak_wait_s"] = nil
	})
	writeVariant(t, fixtures+"/recovered/result.json", cand, func(doc map[string]any) {
		doc["recovery_s"] = recovery - 0.0011
		doc["observation"].(map[string]any)["peak_wait_s"] = nil
	})
	code, stdout, stderr := run(t, "compare", "--junit", junit, base, cand)
	if code != ExitPassed {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "-0 %") || !strings.Contains(stdout, "-0.0011 s (0 %)") {
		t.Errorf("the recovery's difference should read \"-0.0011 s (0 %%)\":\n%s", stdout)
	}
	var peak string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "Peak wait") {
			peak = line
		}
	}
	if !strings.Contains(peak, "not measured in either run") {
		t.Errorf("peak wait row %q; want it not measured in either run", peak)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	x := string(b)
	if !strings.Contains(x, `<testcase name="peak_wait_s" classname="trigger.compare" time="0">`+"\n"+`      <skipped message="not measured in either run"></skipped>`) ||
		!strings.Contains(x, `skipped="1"`) || !strings.Contains(x, `failures="0"`) {
		t.Errorf("junit: peak_wait_s should be the one skipped case, none failed:\n%s", x)
	}
}
