package campaign

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner"
)

// The capacity campaign's fault commands are this test binary run again
// (TestMain): "post URL" posts to URL, the specimen's /admin/capacity.
const postHelperEnv = "TRIGGER_CAMPAIGN_POST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(postHelperEnv) != "" {
		os.Exit(postHelper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func postHelper(args []string) int {
	if len(args) != 2 || args[0] != "post" {
		return 2
	}
	resp, err := http.Post(args[1], "text/plain", nil)
	if err != nil {
		return 4
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 5
	}
	return 0
}

// A capacity campaign at ρ = 0.4 (λ = 80/s, C = 200/s, A = 3, τ_out =
// 0.5 s, a 5 s fault): losses of 0.3 and 0.6 leave C′ ≥ λ (no trigger),
// 0.9 traps, 0.75 traps; the bracket (0.6, 0.75] is within precision 0.3
// and holds the model's smallest trapping loss (about 0.63). Each cell
// reads the scenario again with var.factor = C′/C, which the fault's
// capacity and its start command take.
func TestCampaignMapsACapacityLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end campaign; skipped with -short")
	}
	t.Setenv(postHelperEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	url := startSpecimen(t)
	src := fmt.Sprintf(`
variable "factor" { default = 0.25 } # each cell sets it
scenario "capacity-campaign" { max_duration = "2m" }
target {
  url         = "%[1]s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = "500ms"
  arrivals = "uniform"
  retry {
    max_retries = 2
    on          = ["timeout", "5xx", "503", "connect"]
  }
}
service { capacity = 200 }
load {
  baseline = 80
  warmup   = "3s"
  observe  = "60s"
}
fault "slow-pods" {
  start    = [%[2]s, "post", "%[1]s/admin/capacity?factor=${var.factor}"]
  stop     = [%[2]s, "post", "%[1]s/admin/capacity?factor=1"]
  duration = "5s"
  capacity = var.factor
  timeout  = "5s"
}
prometheus {
  address         = "embedded"
  scrape          = ["%[1]s/metrics"]
  scrape_interval = "500ms"
  ingress         = "sum(rate(specimen_ingress_total[3s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"
  wait            = "max(specimen_queue_wait_estimate_seconds)"
}
recovery { hold = "3s" }
on_trap {
  action  = "drop"
  observe = "40s"
}
campaign {
  baselines         = [0.4]
  search            = "capacity"
  capacity_variable = "factor"
  from              = 0.3
  to                = 0.9
  precision         = 0.3
  rest              = "1s"
}
`, url, strconv.Quote(exe))
	test := loadCampaign(t, src)
	res, err := Run(context.Background(), Options{Test: test, OutDir: t.TempDir(), Run: runner.Options{Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond, Consent: convert.Consent{AllowCommands: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []string
	for _, c := range res.Document.Cells {
		t.Logf("cell %d loss %g: %s (%s)", c.Index, c.Size, c.Verdict, c.Note)
		sizes = append(sizes, strconv.FormatFloat(c.Size, 'g', 4, 64))
	}
	if got := strings.Join(sizes, " "); got != "0.3 0.6 0.9 0.75" {
		t.Fatalf("losses %s; want 0.3 0.6 0.9 0.75", got)
	}
	b := res.Document.Baselines[0]
	lo, hi, model := analysis.Value(b.SmallestTrapLo), analysis.Value(b.SmallestTrapHi), analysis.Value(b.ModelSmallestTrap)
	t.Logf("smallest trapping loss in (%g, %g], model %.3f", lo, hi, model)
	if lo != 0.6 || hi != 0.75 || !(lo < model && model <= hi) || math.IsNaN(model) {
		t.Errorf("bracket (%g, %g], model %g; want (0.6, 0.75] around the model", lo, hi, model)
	}
}
