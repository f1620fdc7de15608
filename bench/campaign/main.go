// Command campaign runs examples/campaign.hcl against the example
// specimen's System A (two pods of 50/s: C = 100/s; two client retries:
// A = 3; Δ = 10 s, τ_out = 1 s) and compares the map it measures with the
// model (docs/model.md, "Mapping the boundary"):
//
//   - at ρ = 0.4 the smallest trapping multiplier within 10 % of
//     (1 + τ_out/Δ)/ρ = 2.75;
//
//   - at ρ = 0.2 and 0.3 (A·ρ < 1) no multiplier up to 10 traps;
//
//   - λ_r within 10 % of C/A = 33.3/s.
//
//     go run ./bench/campaign [-out DIR]
//
// It takes about 25 minutes; the campaign's folder (campaign.json,
// campaign.html, one run per cell) is kept in -out. It exits 1 when a
// figure is off, 2 when the campaign could not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/campaign"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

func main() {
	out := flag.String("out", filepath.Join("out", "bench-campaign-"+time.Now().Format("20060102-150405")), "the campaign's folder")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sp, err := specimen.StartLoopback(ctx, specimen.Config{Pods: 2, PodRate: 50})
	if err != nil {
		fail(err)
	}
	defer func() { _ = sp.Stop() }()
	_, port, _ := net.SplitHostPort(sp.Addr)
	s, err := scenarios.Load(filepath.Join("examples", "campaign.hcl"), map[string]string{"port": port})
	if err != nil {
		fail(err)
	}
	test, err := convert.New(s)
	if err != nil {
		fail(err)
	}
	started := time.Now()
	res, err := campaign.Run(ctx, campaign.Options{Test: test, OutDir: *out, Run: runner.Options{
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) },
	}})
	if res == nil {
		fail(err)
	}
	if err := report.WriteCampaignText(os.Stdout, res.Document); err != nil {
		fail(err)
	}
	fmt.Printf("\ncampaign took %s; %s\n\n", time.Since(started).Round(time.Second), filepath.Join(*out, report.CampaignHTMLFile))
	if err != nil {
		fail(err)
	}
	if svg, err := report.CampaignMapSVG(res.Document); err == nil {
		_ = os.WriteFile(filepath.Join(*out, "campaign-map.svg"), svg, 0o644)
	}
	if !check(res.Document) {
		os.Exit(1)
	}
}

// check compares the map with the model, printing each figure.
func check(d analysis.CampaignDocument) bool {
	ok := true
	say := func(good bool, format string, args ...any) {
		mark := "ok  "
		if !good {
			mark, ok = "OFF ", false
		}
		fmt.Printf(mark+format+"\n", args...)
	}
	c, a := d.Scenario.CapacityPerS, d.Scenario.AmplificationPlanned
	for _, b := range d.Baselines {
		switch {
		case b.Rho*a < 1:
			say(b.SmallestTrap == nil && b.SearchEnd == string(analysis.BracketNoneUpTo),
				"ρ = %.2g: no multiplier up to %g trapped (%s)", b.Rho, d.To, b.SearchEnd)
		default:
			model := (1 + d.Scenario.TimeoutS/d.Scenario.SpikeS) / b.Rho
			got := analysis.Value(b.SmallestTrap)
			say(math.Abs(got-model) <= 0.1*model, "ρ = %.2g: smallest trapping multiplier %.4g (bracket %.4g to %.4g), model %.4g: %+.1f %%",
				b.Rho, got, analysis.Value(b.SmallestTrapLo), analysis.Value(b.SmallestTrapHi), model, 100*(got-model)/model)
			lr, model := analysis.Value(b.RecoveryDemandPerS), c/a
			say(math.Abs(lr-model) <= 0.1*model, "ρ = %.2g: λ_r %.4g/s (bracket %.4g to %.4g), model C/A %.4g/s: %+.1f %%",
				b.Rho, lr, analysis.Value(b.RecoveryDemandPerSLo), analysis.Value(b.RecoveryDemandPerSHi), model, 100*(lr-model)/model)
		}
	}
	return ok
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "campaign:", err)
	os.Exit(2)
}
