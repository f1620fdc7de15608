package convert

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/scenarios"
)

// Each signal's delay is its query's offset and range window (a rate uses
// only the samples inside it), or a scrape interval for a query without a
// range; a wait source is as late as the slowest query it reads, plus the
// clients' retries settling.
func TestSignalDelays(t *testing.T) {
	p := &scenarios.Prometheus{
		Address:        "embedded",
		ScrapeInterval: 5 * time.Second,
		Ingress:        `sum(rate(x_total[20s]))`,
		Served:         `sum(rate(y_total[1m] offset 10s))`,
		FirstAttempts:  `max_over_time(sum(rate(f_total[10s]))[1m:5s])`,
		Wait:           `max(w_seconds)`,
	}
	sigs, err := staticSignals(p)
	if err != nil {
		t.Fatal(err)
	}
	lag := map[string]float64{}
	for _, q := range sigs {
		lag[q.Name] = q.LagS()
	}
	for name, want := range map[string]float64{"ingress": 20, "served": 70, "first_attempts": 70, "wait": 5} {
		if lag[name] != want {
			t.Errorf("%s: lag %g s, want %g s", name, lag[name], want)
		}
	}
	d := WaitDelays(2, sigs, true)
	if d[analysis.WaitFromBacklog] != 72 || d[analysis.WaitFromTracers] != 2 || d[analysis.WaitFromService] != 7 || len(d) != 3 {
		t.Errorf("delays %v; want ingress-served 72 s (the slower of its two queries), tracers 2 s, wait gauge 7 s", d)
	}
	delete(d, analysis.WaitFromService)
	need, note := SoonestJudgement(d, map[analysis.WaitSource]float64{analysis.WaitFromTracers: 1, analysis.WaitFromBacklog: 5}, 2)
	// The best source offered is tracers: 2 s to settle, three samples a second apart.
	if need != 5 || !strings.Contains(note, "tracers") {
		t.Errorf("soonest %g s (%s); want 5 s on tracers", need, note)
	}
	if need, _ := SoonestJudgement(map[analysis.WaitSource]float64{}, nil, 2); !math.IsNaN(need) {
		t.Errorf("no source: %g", need)
	}
}

// A query pinned with @ does not follow the run: refused before any load.
func TestSignalPinnedQueryRefused(t *testing.T) {
	_, err := staticSignals(&scenarios.Prometheus{Address: "embedded", Ingress: `sum(rate(x_total[20s] @ 1700000000))`})
	if err == nil || !strings.Contains(err.Error(), "@") {
		t.Errorf("err = %v, want a refusal naming @", err)
	}
}

// A remote server's scrape_interval is what the plan and the run assume
// until the run reads the server's own: the plan counts it in the soonest
// judgement and says so; without it, the plan says it left it out.
func TestRemoteScrapeIntervalAssumed(t *testing.T) {
	// driver.hcl, its Prometheus remote and scraped every 30 s.
	src, err := os.ReadFile(filepath.Join("testdata", "driver.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	remote := strings.Replace(string(src), `scrape_interval = "5s"`, `address         = "http://127.0.0.1:9090"
  scrape_interval = "30s"`, 1)
	s, err := scenarios.Parse("remote-scrape.hcl", []byte(remote), nil)
	if err != nil {
		t.Fatal(err)
	}
	test, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range test.Signals {
		if sig.ScrapeS != 30 || sig.ScrapeFrom != RemoteIntervalAssumed {
			t.Errorf("%s: scrape %g s from %q; want 30 s, the scenario's", sig.Name, sig.ScrapeS, sig.ScrapeFrom)
		}
	}
	// The wait gauge: settle, one scrape of lag, then three scrapes.
	if want := test.RetrySettleS + 4*30; math.Abs(test.Plan.JudgeAfterS-want) > 1e-9 || !strings.Contains(test.Plan.JudgeAfterNote, "scenario's scrape_interval") {
		t.Errorf("judge after %g s (%s), want %g s with the scenario's interval", test.Plan.JudgeAfterS, test.Plan.JudgeAfterNote, want)
	}
	s.Prometheus.ScrapeIntervalGiven = false
	unknown, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	if sig := unknown.Signals[0]; sig.ScrapeS != 0 || !strings.Contains(unknown.Plan.JudgeAfterNote, "read at run time") {
		t.Errorf("no scrape_interval: scrape %g s, note %q", sig.ScrapeS, unknown.Plan.JudgeAfterNote)
	}
}
