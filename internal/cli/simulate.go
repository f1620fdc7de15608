package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
	"github.com/trigger-test/trigger/analysis/request"
)

// simulateFlags are simulate's own flags.
type simulateFlags struct {
	asJSON       bool
	model        string
	seed         int64
	runs         int
	step, sample float64
	// The tipping sweep.
	tipping      bool
	theta        float64
	attempts     int
	horizon      float64
	collapseWait float64
	backoff      float64
	loads        []float64
	// Calibrated from a run.
	from string
	sets []string
}

func newSimulateCommand(stdout, stderr io.Writer) *cobra.Command {
	var sf scenarioFlags
	var f simulateFlags
	cmd := &cobra.Command{
		Use:   "simulate [--model fluid|request] [--seed N] [--runs N] [--json] SCENARIO.hcl\n  simulate --tipping [--theta θ] [--attempts R] [--backoff B] [--runs N] [--json] [SCENARIO.hcl]\n  simulate --from RUN_DIR [--set PATH=VALUE ...] [SCENARIO.hcl]",
		Short: "Run the scenario through a model of the service, second by second; sends nothing",
		Long: `simulate runs the scenario's warmup, spike and observation through a model
of the service and prints what the model shows: the verdict, the recovery
time, the amplification in the failed state, and a timeline.

The fluid model (--model fluid, the default) is the model of docs/model.md
in delay form: a FIFO queue at the scenario's capacity, clients that give
up after their timeout and retry (cap, budget, mean backoff), work served
even after its client has gone, and an optional admission bound.

The request model (--model request) simulates every attempt: Poisson or
uniform arrivals, pods × workers servers behind per-pod or shared FIFO
queues, deterministic, exponential or lognormal service times (the service
block's workers, service_time, service_cv, queue, deadline_propagation),
and the clients' own retry policy as the driver applies it (caps, budgets,
token buckets, backoff, jitter). It is seeded (--seed); --runs N repeats it
with seeds N apart and prints the spread of the recovery time and the
fraction of runs trapped, showing the median run.

--tipping sweeps the collapse law's M/M/1 service instead (docs/model.md,
"The collapse law"): one exponential server, timeout θ service times,
R attempts per request (0: unlimited), and reports the fraction of --runs
runs (default 20) per load λ/μ that collapse within the horizon, beside
λ_c. With a scenario, θ = C·τ_out and R = max_retries + 1 come from it
unless given.

--from RUN_DIR calibrates the fluid model from a recorded run: the run's
measured C, baseline λ, hidden retry factor (A_fail over the clients' own)
and a shorter patience replace the scenario's, the scenario being the copy
the run kept (scenario.hcl) unless one is given. It prints how close the
simulation comes to the run's recovery. --set PATH=VALUE changes any
attribute of the scenario first, a what-if without loading staging again:
--set client.retry.budget=0.1, --set service.admission_bound=500ms,
--set layer.gateway.max_retries=0. A figure a --set names keeps the
what-if's value instead of the run's.

Exit codes as for plan: 0 the gate passes, 1 it fails, 3 no trigger
(--tipping: 0).`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.tipping {
				return runTipping(cmd, &sf, &f, args, stdout, stderr)
			}
			if f.from != "" {
				return runSimulateFrom(cmd.Context(), &sf, &f, args, stdout, stderr)
			}
			if len(f.sets) > 0 {
				if len(args) != 1 {
					return fmt.Errorf("accepts 1 arg(s), received %d", len(args))
				}
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--set is a what-if on a recorded run: give --from RUN_DIR (or edit %s)", args[0])}
			}
			if len(args) != 1 {
				return fmt.Errorf("accepts 1 arg(s), received %d", len(args))
			}
			return runSimulate(cmd.Context(), &sf, &f, args[0], stdout, stderr)
		},
	}
	sf.register(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print the result document, timeline included, as JSON")
	fl.StringVar(&f.model, "model", "fluid", "the model: fluid or request")
	fl.Int64Var(&f.seed, "seed", 1, "random seed of the request model and the tipping sweep (run i uses seed + i)")
	fl.IntVar(&f.runs, "runs", 1, "request model: runs with successive seeds; tipping: runs per load (20 unless given)")
	fl.Float64Var(&f.step, "step", 0.01, "integration step of the fluid model, seconds")
	fl.Float64Var(&f.sample, "sample", 1, "timeline resolution, seconds")
	fl.BoolVar(&f.tipping, "tipping", false, "sweep the collapse law's M/M/1 service and report the probability of collapse")
	fl.Float64Var(&f.theta, "theta", 0, "tipping: θ = μ·T, the timeout in service times (default from the scenario)")
	fl.IntVar(&f.attempts, "attempts", 0, "tipping: R, attempts per request in total, 0 for unlimited (default from the scenario)")
	fl.Float64Var(&f.horizon, "horizon", 0, "tipping: service times each run watches (default max(20000, 200·θ))")
	fl.Float64Var(&f.collapseWait, "collapse-wait", 0, "tipping: the wait, in timeouts, that counts as collapse (default 20)")
	fl.StringVar(&f.from, "from", "", "calibrate the fluid model from a recorded run (its folder or result.json): its measured C, λ, hidden retries and patience; the scenario is the run's copy unless given")
	fl.StringArrayVar(&f.sets, "set", nil, "with --from: a what-if, PATH=VALUE of any scenario attribute (client.retry.budget=0.1, service.admission_bound=500ms); repeatable")
	fl.Float64Var(&f.backoff, "backoff", 0, "tipping: service times from a timeout to its retry (default 0: at once; make bench-tipping uses 10)")
	fl.Float64SliceVar(&f.loads, "loads", nil, "tipping: the loads λ/μ to sweep, comma-separated (default λ_c × 0.1 … 1.5)")
	return cmd
}

// runSimulate runs the fluid or the request model over a scenario.
func runSimulate(ctx context.Context, sf *scenarioFlags, f *simulateFlags, path string, stdout, stderr io.Writer) error {
	switch {
	case f.model != "fluid" && f.model != "request":
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--model %q: want fluid or request", f.model)}
	case f.runs < 1:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--runs %d: want at least 1", f.runs)}
	case f.runs > 1 && f.model == "fluid":
		return &ExitError{Code: ExitUsage, Err: errors.New("--runs: the fluid model is deterministic; use --model request")}
	case f.seed < 0:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--seed %d: want a seed ≥ 0", f.seed)}
	}
	t, err := sf.loadTest(ctx, path, stderr)
	if err != nil {
		return err
	}
	var doc analysis.Document
	if f.model == "fluid" {
		doc, err = fluid.SimulatePlan(t.Plan, f.step, f.sample)
	} else {
		cfg := t.RequestConfig(uint64(f.seed))
		cfg.SampleS = f.sample
		doc, err = request.SimulatePlan(ctx, t.Plan, cfg, f.runs)
	}
	if err != nil {
		return modelError(err)
	}
	// The model's odds as plan and run give them (seed 1, the default
	// runs), whichever model drew the timeline: the same figure everywhere.
	if doc.TrapProbability, err = t.TrapProbability(ctx); err != nil {
		return modelError(err)
	}
	err = emit(stdout, doc, f.asJSON, func(w io.Writer) error {
		if err := printSpread(w, doc.Runs); err != nil {
			return err
		}
		return printTimeline(w, doc.Timeline)
	})
	if err != nil {
		return err
	}
	return exitFor(doc)
}

// modelError maps a model's error to its exit code.
func modelError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return &ExitError{Code: ExitInterrupted, Err: err}
	case errors.Is(err, fluid.ErrConfig) || errors.Is(err, request.ErrConfig):
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return &ExitError{Code: ExitHarness, Err: err}
}

// printSpread writes the spread over repeated request-level runs.
func printSpread(w io.Writer, sp *analysis.RunSpread) error {
	if sp == nil {
		return nil
	}
	t := &textWriter{w: w}
	verdicts := make([]string, 0, len(sp.Verdicts))
	for v, n := range sp.Verdicts {
		verdicts = append(verdicts, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(verdicts)
	t.raw("\n")
	t.line("Runs", "%d seeds from %d: %s; trapped in %.0f %% (95 %%: %.0f–%.0f %%)", sp.Runs, sp.FirstSeed, strings.Join(verdicts, ", "),
		100*sp.TrappedFraction, 100*sp.Trapped.Lo, 100*sp.Trapped.Hi)
	t.line("", "recovery min %s, median %s, max %s; peak wait %s–%s",
		optSeconds(sp.RecoveryMinS), optSeconds(sp.RecoveryMedianS), optSeconds(sp.RecoveryMaxS),
		analysis.FormatSeconds(sp.PeakWaitMinS), analysis.FormatSeconds(sp.PeakWaitMaxS))
	t.line("", "above: the median run (seed %d)", sp.ShownSeed)
	return t.err
}

// runTipping sweeps the collapse law's service.
func runTipping(cmd *cobra.Command, sf *scenarioFlags, f *simulateFlags, args []string, stdout, stderr io.Writer) error {
	fl := cmd.Flags()
	cfg := request.TippingConfig{Theta: f.theta, Attempts: f.attempts, Loads: f.loads, Runs: f.runs,
		HorizonS: f.horizon, CollapseWait: f.collapseWait, BackoffS: f.backoff}
	if f.seed < 0 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--seed %d: want a seed ≥ 0", f.seed)}
	}
	cfg.Seed = uint64(f.seed)
	if !fl.Changed("runs") {
		cfg.Runs = 20
	}
	source := ""
	if len(args) == 1 {
		t, err := sf.loadTest(cmd.Context(), args[0], stderr)
		if err != nil {
			return err
		}
		s, in := t.Scenario, t.Plan
		mu, tau := in.Scenario.CapacityPerS, in.Scenario.TimeoutS
		if !fl.Changed("theta") {
			cfg.Theta = mu * tau
		}
		if !fl.Changed("attempts") {
			cfg.Attempts = in.Layers[0].MaxRetries + 1
		}
		source = fmt.Sprintf("%s: μ = C = %s/s, T = τ_out = %s (one service time 1/μ = %.3g ms)", s.Name, num(mu), analysis.FormatSeconds(tau), 1000/mu)
	}
	if cfg.Theta <= 0 {
		return &ExitError{Code: ExitUsage, Err: errors.New("--tipping needs --theta θ > 0, or a scenario to take it from")}
	}
	res, err := request.TippingSweep(cmd.Context(), cfg)
	if err != nil {
		return modelError(err)
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return &ExitError{Code: ExitHarness, Err: err}
		}
		return nil
	}
	if err := printTipping(stdout, res, source); err != nil {
		return &ExitError{Code: ExitHarness, Err: err}
	}
	return nil
}

// printTipping writes the sweep as a table beside the collapse law.
func printTipping(w io.Writer, res request.TippingResult, source string) error {
	t := &textWriter{w: w}
	retries := "unlimited retries (R → ∞)"
	if res.Attempts > 0 {
		retries = fmt.Sprintf("R = %d attempts per request", res.Attempts)
	}
	when := "retry when the timeout fires"
	if res.Backoff > 0 {
		when = fmt.Sprintf("retry %s service times after the timeout", num(res.Backoff))
	}
	t.raw("Tipping sweep of the collapse law's service (M/M/1, timed-out work served, %s)\n", when)
	if source != "" {
		t.raw("%s\n", source)
	}
	t.raw("\n")
	t.line("Service", "θ = μ·T = %s, %s", num(res.Theta), retries)
	t.line("Runs", "%d per load, each watching %s service times; collapsed: the wait passed %s service times (%s timeouts)",
		res.Runs, num(res.Horizon), num(res.CollapseWait), num(res.CollapseWait/res.Theta))
	recovery := "never comes back by itself"
	if res.RecoveryThreshold > 0 {
		recovery = fmt.Sprintf("comes back below λ_r/μ = 1/R = %.3f", res.RecoveryThreshold)
	}
	t.line("Collapse law", "λ_c/μ = %.3f (ρ* = %.3f; large-θ form %.3f); collapsed, it %s; hysteresis: %s",
		res.LambdaC, res.RhoStar, res.LambdaCAsymptote, recovery, map[bool]string{true: "yes", false: "no"}[res.Hysteresis])
	if res.Tipping50 != nil {
		t.line("Tipping point", "half the runs collapse at λ/μ = %.3f (%.2f λ_c)", *res.Tipping50, *res.Tipping50/res.LambdaC)
	} else {
		t.line("Tipping point", "no load in the sweep collapses half the runs")
	}
	t.raw("\n%9s %9s %11s %9s %22s\n", "λ/μ", "λ/λ_c", "collapsed", "fraction", "median collapse (1/μ)")
	for _, p := range res.Points {
		at := "—"
		if p.MedianCollapse != nil {
			at = fmt.Sprintf("%.0f", *p.MedianCollapse)
		}
		t.raw("%9.4f %9.2f %11s %9.2f %22s\n", p.Load, p.Load/res.LambdaC, fmt.Sprintf("%d/%d", p.Collapsed, p.Runs), p.Fraction, at)
	}
	return t.err
}
