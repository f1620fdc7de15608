package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
)

// capacityCampaign is a capacity campaign whose fault starts with start
// (an HCL expression); its target listens nowhere.
func capacityCampaign(start string) string {
	return fmt.Sprintf(`
variable "factor" { default = 0.25 }
scenario "hidden" {}
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
  start    = %s
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
  precision         = 0.3
}
`, start)
}

// A campaign whose cells would run a command the listing (evaluated with
// the capacity variable's default) does not show is refused whole, a
// usage error naming both command lines, before its folder is made or
// any cell runs: no marker file appears, whether the hidden command is
// chosen at the first cell's value or only at a value the bisection
// reaches (issue 32, campaign cells).
func TestCampaignRefusesCommandsTheListingDidNotShow(t *testing.T) {
	for _, tc := range []struct{ name, when string }{
		{"any other value", "var.factor == 0.25"},
		{"a bisection's value", "var.factor != 0.55"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marks := t.TempDir()
			start := fmt.Sprintf(`["sh", "-c", %s ? "echo harmless" : "touch %s/HIDDEN_RAN_${var.factor}"]`, tc.when, marks)
			test := loadCampaign(t, capacityCampaign(start))
			if got := test.Scenario.Touches.Commands[0].Argv; !slices.Equal(got, []string{"sh", "-c", "echo harmless"}) {
				t.Fatalf("the listing shows %q", got)
			}
			out := filepath.Join(t.TempDir(), "out")
			res, err := Run(context.Background(), Options{Test: test, OutDir: out, Run: runner.Options{Consent: convert.Consent{AllowCommands: true}}})
			var re *runner.Error
			if res != nil || !errors.As(err, &re) || re.Kind != runner.KindUsage {
				t.Fatalf("result %v, err %v; want a usage error", res, err)
			}
			for _, want := range []string{"listed:    fault \"slow-pods\" start: sh -c 'echo harmless'", "this cell: fault \"slow-pods\" start: sh -c 'touch " + marks + "/HIDDEN_RAN_", "nothing was sent"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused campaign made its folder: %v", err)
			}
			if entries, _ := os.ReadDir(marks); len(entries) > 0 {
				t.Errorf("a hidden command ran: %s", entries[0].Name())
			}
		})
	}
}

// A capacity campaign's commands may take the capacity variable's value
// (docs/scenarios.md's example) and nothing else that varies with it: a
// value computed from it is refused too, as a different command.
func TestCampaignCellsMayDifferOnlyInTheCapacityVariable(t *testing.T) {
	for _, tc := range []struct {
		start string
		ok    bool
	}{
		{`["./set-capacity", "${var.factor}"]`, true},
		{`["curl", "http://127.0.0.1:9/admin/capacity?factor=${var.factor}&x=1"]`, true},
		{`["./set-capacity", "${var.factor * 100}"]`, false},
		{`["./set-capacity", var.factor < 0.5 ? "--all" : "${var.factor}"]`, false},
	} {
		test := loadCampaign(t, capacityCampaign(tc.start))
		cp := &campaign{opts: Options{Test: test}, scenario: test.Scenario}
		err := cp.checkCells()
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.start, err, tc.ok)
		} else if err != nil {
			t.Logf("%s: %v", tc.start, err)
		}
	}
}

// reachableSizes holds every size a search can try: the doubling from
// from and the bisection's midpoints, whatever the cells show.
func TestReachableSizes(t *testing.T) {
	var got []string
	for _, s := range reachableSizes(0.3, 0.9, 0.3, 100) {
		got = append(got, strconv.FormatFloat(s, 'g', 4, 64))
	}
	slices.Sort(got)
	if want := "0.3 0.375 0.45 0.6 0.75 0.9"; strings.Join(got, " ") != want {
		t.Errorf("sizes %s; want %s", strings.Join(got, " "), want)
	}
	if n := len(reachableSizes(1.5, 1000, 0.001, 50)); n != 50 {
		t.Errorf("%d sizes; want the limit, 50", n)
	}
}

// Each cell's scenario is checked again as the cell is prepared, so that
// a size past maxCheckedSizes cannot run a command the listing did not
// show either.
func TestCellScenarioRefusesCommandsTheListingDidNotShow(t *testing.T) {
	test := loadCampaign(t, capacityCampaign(`["sh", "-c", var.factor != 0.55 ? "echo harmless" : "touch HIDDEN"]`))
	cp := &campaign{opts: Options{Test: test}, scenario: test.Scenario}
	if _, err := cp.cellScenario(cell{kind: analysis.CellTrigger, size: 0.3}); err != nil {
		t.Errorf("loss 0.3: %v", err)
	}
	if _, err := cp.cellScenario(cell{kind: analysis.CellTrigger, size: 0.45}); err == nil || !strings.Contains(err.Error(), "touch HIDDEN") {
		t.Errorf("loss 0.45: err = %v, want the hidden command refused", err)
	}
}
