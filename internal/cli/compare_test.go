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
