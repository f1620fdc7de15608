package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/campaign"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

func newCampaignCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var asJSON, yes, overwrite, force, dryRun, tipping bool
	var out, abortFile, metricsAddr string
	var seed uint64
	var cf consentFlags
	cmd := &cobra.Command{
		Use:   "campaign [--dry-run] [--yes] [--tipping] [--out DIR] [--var NAME=VALUE] SCENARIO.hcl",
		Short: "Map the smallest trigger that traps the service, and the demand it comes back at",
		Long: `campaign runs whole trigger tests (cells) to map the scenario's campaign
block: at each baseline it brackets the smallest spike (multiplier or
duration) that traps the service, starting from the safe size 'from' and
doubling until one traps, then halving the bracket until it is 'precision'
narrow. With hysteresis = true, after a trap it brackets λ_r, the highest
demand at which the failed service comes back: each such cell traps the
service, then holds demand at one rate for on_trap's observation.

Every cell is a trigger test judged as 'trigger run' judges one, in its own
folder under --out, with every brake of the scenario (stop_when,
--abort-file, max_duration per cell, the campaign's max_duration). A cell
starts only on a recovered service: a light probe (a tenth of capacity, no
retries) must see the first-attempt success ratio hold at the recovery rule;
a service that does not come back within on_trap's observation stops the
campaign. campaign.json, rewritten after every cell, holds every finished
cell, what each baseline showed (the bracket, the model's boundary from the
scenario's A and from the measured A_fail, λ_r) and why the campaign
stopped; campaign.html draws the map.

With campaign { trials = N } each trigger cell is repeated (a run folder
per trial, the probe before each) until a sequential test tells its
P(trap) from trap_probability (default 0.5) or N trials are spent, and the
search is for the size where P(trap) crosses that level: each cell records
its P(trap) with its Wilson 95 % interval beside the request-level model's
for the same scenario, and each baseline the boundary at the level with
its interval (a tipping curve fitted to every trial) beside the model's.
--tipping also draws the model's P(trap) over the searched range on the
campaign's tipping chart (with one trial a cell too).

gate { min_trigger_margin = 2 } with an expected_spike block passes when
every baseline is known to survive twice production's spike (with trials:
the boundary's lower interval end at the level).

--dry-run prints the baselines, the first cell and the most cells each
search can take, the longest the campaign can take, and what its cells do
besides their load (servers, commands, secrets, files) as plan lists it;
it sends nothing.

Exit codes: 0 finished (and the gate passed), 1 the gate failed or the
service did not come back, 2 usage or scenario error, 3 a baseline could not
be measured, 4 harness error, 5 stopped by a brake, 130 interrupted (also
at the campaign's max_duration).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			test, err := sf.loadTest(cmd.Context(), args[0], stderr)
			if err != nil {
				return err
			}
			s := test.Scenario
			if s.Campaign == nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s has no campaign block: add campaign { baselines = [0.2, 0.4], from = 1.5, to = 10 } (docs/scenarios.md)", args[0])}
			}
			if dryRun {
				return printCampaignPlan(stdout, test)
			}
			if out == "" {
				out = filepath.Join("out", fmt.Sprintf("%s-campaign-%s", s.Name, time.Now().Format("20060102-150405")))
			}
			if err := test.Run.CheckConsent(cf.consent()); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w; nothing was sent", err)}
			}
			worst, cells, longest := campaignWorst(test)
			if !yes {
				fmt.Fprintf(stderr, "A campaign of up to %d trigger tests, at most %s. The largest:\n", cells, longest)
			}
			if err := confirm(worst, yes, os.Stdin, stderr); err != nil {
				return err
			}
			vars := sf.resolved
			pp := newProgressPrinter(stderr)
			res, err := campaign.Run(cmd.Context(), campaign.Options{
				Test:    test,
				OutDir:  out,
				Vars:    vars,
				Tipping: tipping,
				Run: runner.Options{
					Seed:       seed,
					Progress:   pp.update,
					Logf:       pp.note,
					AbortFile:  abortFile,
					Force:      force,
					FaultGuard: faultGuardOf(cmd.Context()),
					Overwrite:  overwrite,
					Hurry:      hurryOf(cmd.Context()),
					// Each cell serves its driver's metrics there in turn.
					MetricsListen: metricsAddr,
					Consent:       cf.consent(),
				},
			})
			pp.end()
			if res == nil {
				return runError(err)
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res.Document); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
			} else {
				if err := report.WriteCampaignText(stdout, res.Document); err != nil {
					return &ExitError{Code: ExitHarness, Err: err}
				}
				fmt.Fprintf(stdout, "\nCampaign: %s\n", filepath.Join(res.OutDir, campaign.File))
			}
			// A broken campaign (a cell's usage error, a harness error)
			// exits as a run would; otherwise the outcome decides.
			if re := (*runner.Error)(nil); errors.As(err, &re) && (re.Kind == runner.KindHarness || re.Kind == runner.KindUsage) {
				return runError(err)
			}
			code := map[campaign.Outcome]int{campaign.Finished: ExitPassed, campaign.Incomplete: ExitInconclusive,
				campaign.GateFailed: ExitGateFailed, campaign.Stopped: ExitStopped, campaign.Interrupted: ExitInterrupted}[res.Outcome]
			if code == ExitPassed {
				return nil
			}
			return &ExitError{Code: code, Err: err, Reported: true}
		},
	}
	sf.register(cmd)
	cf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print campaign.json instead of the table")
	cmd.Flags().BoolVar(&tipping, "tipping", false, "also record the model's P(trap) at every cell and over the searched range, and draw it on the tipping chart")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the cells planned and the longest the campaign can take; send nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation (required without a terminal)")
	cmd.Flags().StringVar(&out, "out", "", "the campaign's folder (default out/NAME-campaign-TIMESTAMP)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of every cell's arrival schedule and jitter")
	cmd.Flags().StringVar(&abortFile, "abort-file", "", "stop the campaign (exit 5) as soon as this path exists")
	cmd.Flags().BoolVar(&force, "force", false, "start a fault even though a journal says one is pending (see trigger restore)")
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "reuse a non-empty --out: remove the previous campaign there")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve each cell's trigger_* metrics at this address for an outside Prometheus (e.g. :9464, which binds 127.0.0.1; a host that is not loopback is warned about)")
	return cmd
}

// campaignWorst is the scenario as its largest cell drives it, for the
// confirmation: the highest baseline and the largest spike the campaign
// may send.
func campaignWorst(test *convert.Test) (worst *convert.Test, cells int, longest time.Duration) {
	s := *test.Scenario
	c := s.Campaign
	for _, r := range c.Rates {
		s.Load.Baseline = max(s.Load.Baseline, r)
	}
	switch c.Search {
	case vocab.SearchDuration:
		s.Load.Spike.Duration = time.Duration(c.To * float64(time.Second))
	case vocab.SearchMultiplier:
		s.Load.Spike.Multiplier = c.To
	}
	plan := analysis.Plan(test.Plan)
	p := campaign.Plan(test.Scenario, plan.Amplification.Predicted, plan.Scenario.PatienceS, campaign.DeclaredLaw(plan))
	wt := *test
	wt.Scenario = &s
	return &wt, p.MaxCells, p.Longest.Round(time.Second)
}

// printCampaignPlan prints what --dry-run promises: nothing is sent.
func printCampaignPlan(w io.Writer, test *convert.Test) error {
	s := test.Scenario
	plan := analysis.Plan(test.Plan)
	p := campaign.Plan(s, plan.Amplification.Predicted, plan.Scenario.PatienceS, campaign.DeclaredLaw(plan))
	c := s.Campaign
	fmt.Fprintf(w, "Campaign  %s: %s from %g to %g, precision %g %%; nothing is sent\n", s.Name, c.Search, c.From, c.To, 100*c.Precision)
	if c.Trials > 1 {
		fmt.Fprintf(w, "Odds      up to %d trials a cell, until a sequential test tells its P(trap) from %g; the boundary is where P(trap) crosses %g\n", c.Trials, c.TrapProbability, c.TrapProbability)
	}
	trapRule, noTrap := fmt.Sprintf("a trigger traps where A·ρ ≥ 1 (ρ ≥ %.3g)", 1/plan.Amplification.Predicted), ": no spike traps (A·ρ < 1)"
	if l := campaign.DeclaredLaw(plan); l != nil && !l.Queue() {
		cTau := l.CapacityAtTimeout(plan.Scenario.PatienceS)
		trapRule = fmt.Sprintf("latency grows with concurrency (L₀ = %gs): a trigger traps where A·λ ≥ C_τ = %.4g/s (ρ ≥ %.3g)",
			l.FloorS, cTau, cTau/(plan.Amplification.Predicted*s.Service.Capacity))
		noTrap = ": no spike traps (A·λ < C_τ)"
	}
	fmt.Fprintf(w, "Model     C = %g/s, patience %gs, A = %.3g: %s\n",
		s.Service.Capacity, plan.Scenario.PatienceS, plan.Amplification.Predicted, trapRule)
	for _, b := range p.Baselines {
		model := noTrap
		if !math.IsInf(b.ModelSmallestTrap, 1) {
			model = fmt.Sprintf("'s smallest trap %.4g", b.ModelSmallestTrap)
		}
		fmt.Fprintf(w, "ρ = %.3g (%.4g/s): first cell %g, at most %d trigger cells", b.Rho, b.DemandPerS, b.First, b.MaxTriggerCells)
		if c.Trials > 1 {
			fmt.Fprintf(w, " of up to %d trials each (%d runs)", c.Trials, b.MaxTriggerRuns)
		}
		if c.Hysteresis {
			fmt.Fprintf(w, " and %d recovery-demand cells", b.MaxRecoveryCells)
		}
		fmt.Fprintf(w, "; model%s\n", model)
	}
	fmt.Fprintf(w, "Each cell at most %s, after a rest of %s and a probe of at most %s\n", p.CellLength, p.Rest, p.ProbeLimit)
	bound := ""
	if p.Bounded {
		bound = " (max_duration)"
	}
	runs := "cells"
	if c.Trials > 1 {
		runs = "runs"
	}
	if _, err := fmt.Fprintf(w, "At most %d %s; the campaign takes at most %s%s\n", p.MaxCells, runs, p.Longest.Round(time.Second), bound); err != nil {
		return err
	}
	return printCampaignTouches(w, test, plan.Scenario.Touches)
}

// printCampaignTouches lists what the campaign's cells do besides their
// load, as plan and the confirmation list it (touchesText); for a
// capacity search, the value the commands are shown with.
func printCampaignTouches(w io.Writer, test *convert.Test, t *analysis.Touches) error {
	s := test.Scenario
	text := touchesText(t, "  ")
	if text == "" {
		return nil
	}
	if c := s.Campaign; c.Search == vocab.SearchCapacity && len(t.Commands) > 0 {
		text += fmt.Sprintf("  The commands are shown with %s = %s; each cell runs them with the capacity it leaves in that value's place, and a campaign whose cells would run anything else is refused.\n",
			safetext.Line(c.CapacityVariable), safetext.Line(scenarios.VariableText(s.Variables[c.CapacityVariable])))
	}
	_, err := fmt.Fprintf(w, "\nBesides its load, a run of this scenario:\n%s", redact(text, s.Secrets))
	return err
}
