package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/fluid"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// runSimulateFrom calibrates the fluid model from a recorded run and
// simulates the run's scenario with it (docs/model.md, "Mapping the
// boundary", a model calibrated from a run): the run's measured C, λ,
// hidden retry factor and patience replace the scenario's, --set changes
// what the scenario says (a what-if), and the output compares the
// simulation with what the run measured.
func runSimulateFrom(ctx context.Context, sf *scenarioFlags, f *simulateFlags, args []string, stdout, stderr io.Writer) error {
	if f.model != "fluid" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--from calibrates the fluid model; --model %s is not calibrated yet", f.model)}
	}
	// The result document alone: the timeline is not needed, and a large
	// one is never read.
	run, _, err := report.ReadRunResult(f.from)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--from: %w", err)}
	}
	if run.Kind != "run" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--from %s: not a run's result (kind %q)", f.from, run.Kind)}
	}
	path := filepath.Join(runDir(f.from), report.ScenarioFile)
	if len(args) == 1 {
		path = args[0]
	}
	src, err := scenarios.ReadSource(path)
	if errors.Is(err, os.ErrNotExist) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (give the run's scenario file after --from)", err)}
	}
	if err != nil {
		_, err = reportedTo(nil, err, stderr) // a file too large is a diagnostic
		return err
	}
	// The environment's TRIGGER_VAR_ values, then the run's, then the var
	// files and --var.
	vars := envVars(declaredVariables(src), os.LookupEnv)
	for name, v := range run.Scenario.Variables {
		if v != scenarios.SensitiveValue {
			vars[name] = scenarios.VariableText(v) // the values the run ran with
		}
	}
	own, err := sf.flagValues()
	if err != nil {
		return err
	}
	for name, v := range own {
		vars[name] = v
	}
	name := path
	// The run's copy is read as the original file, whose folder relative
	// paths (data files, fault commands) are taken from.
	if len(args) == 0 && run.Scenario.File != "" {
		if fi, err := os.Stat(filepath.Dir(run.Scenario.File)); err == nil && fi.IsDir() {
			name = run.Scenario.File
		}
	}
	if len(f.sets) > 0 {
		if src, err = scenarios.Override(path, src, f.sets); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		name += " (with --set)"
	}
	s, perr := scenarios.ParseWith(name, src, scenarios.Options{Vars: vars, AllowFiles: sf.allowFiles})
	s, err = reportedTo(s, perr, stderr)
	if err != nil {
		return err
	}
	t, err := convert.New(s)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	in, cal := analysis.Calibrate(t.Plan, run, keptBySet(f.sets))
	doc, err := fluid.SimulatePlan(in, f.step, f.sample)
	if err != nil {
		return modelError(err)
	}
	return emit(stdout, doc, f.asJSON, func(w io.Writer) error {
		if err := printCalibration(w, run, doc, cal, f); err != nil {
			return err
		}
		return printTimeline(w, doc.Timeline)
	})
}

// keptBySet says which calibrated figures a --set names: the what-if's
// own value wins over the run's measurement.
func keptBySet(sets []string) analysis.CalibrateKeep {
	var k analysis.CalibrateKeep
	for _, s := range sets {
		path, _, _ := strings.Cut(s, "=")
		path = strings.TrimSpace(path)
		switch {
		case strings.HasPrefix(path, "service.capacity"), strings.HasPrefix(path, "service.pod"):
			k.Capacity = true
		case path == "load.baseline":
			k.Demand = true
		case strings.HasPrefix(path, "layer."), strings.HasPrefix(path, "client.retry"):
			k.Layers = true
		case path == "client.timeout":
			k.Patience = true
		}
	}
	return k
}

// printCalibration says what the model took from the run and how close
// the simulation comes to what the run measured.
func printCalibration(w io.Writer, run, sim analysis.Document, cal analysis.Calibration, f *simulateFlags) error {
	t := &textWriter{w: w}
	t.raw("\n")
	t.line("Calibrated", "from %s: %s", f.from, cal)
	for _, n := range cal.Notes {
		t.line("", "%s", n)
	}
	if len(f.sets) > 0 {
		t.line("What-if", "%s", strings.Join(f.sets, ", "))
	}
	measured, simulated := analysis.Value(run.RecoveryS), analysis.Value(sim.RecoveryS)
	t.line("The run", "%s", runOutcome(run.Verdict, measured))
	line := runOutcome(sim.Verdict, simulated)
	if finite(measured) && finite(simulated) && measured > 0 && len(f.sets) == 0 {
		line += fmt.Sprintf(" (%+.0f %% against the run)", 100*(simulated-measured)/measured)
	}
	t.line("The model", "%s", line)
	return t.err
}

func runOutcome(v analysis.Verdict, recoveryS float64) string {
	if finite(recoveryS) {
		return fmt.Sprintf("%s, recovery %s", v, analysis.FormatSeconds(recoveryS))
	}
	return string(v)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// runDir is a run's folder given it or its result.json.
func runDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}
