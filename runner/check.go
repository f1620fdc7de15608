package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/vocab"
)

// CheckStep is one step of `trigger check`: what was checked, whether it
// passed, and what was found or what to fix.
type CheckStep struct {
	Name   string
	OK     bool
	Detail string
	// Kind is, for a step that failed, how `run` would end: KindUsage,
	// KindHarness, KindInconclusive or KindStopped.
	Kind Kind
}

// CheckOptions configure Check.
type CheckOptions struct {
	// Run is what a run of the scenario would be given: its Test, Consent,
	// Force, StateDir and the environment (Getenv) count; OutDir is not
	// used (the embedded Prometheus keeps its data in a temporary folder).
	Run Options
	// NoRequest leaves out the one request to the target.
	NoRequest bool
}

// Check runs the preflight of Run and nothing destructive: the allowlist,
// the consent a run would need, a pending fault's journal, the baseline
// file, the commands the scenario runs (found and executable, never run),
// the target's TLS handshake, a gRPC target's message types (fetched from
// its reflection service when the scenario says so) and one message
// encoded per call, Prometheus reached with its credentials and
// TLS, every query answering (or named as the driver's own), the scrape
// intervals read, the brakes evaluated, and at most one request to the
// target, sent as a first attempt is. It returns every step, in that
// order; a step that cannot be taken because an earlier one failed is
// left out. The error is an interrupt.
//
// Nothing is sent to a host outside allow_hosts (a failed allowlist ends
// the check), and nothing to the target once a step has failed: a run
// would have stopped there.
func Check(ctx context.Context, opts CheckOptions) ([]CheckStep, error) {
	red := newRedactor(append(credentialTexts(opts.Run.Test.Run, opts.Run.getenv), opts.Run.Test.Run.Secrets...))
	opts.Run.Logf = red.logf(opts.Run.Logf)
	steps, err := check1(ctx, opts)
	for i := range steps {
		steps[i].Detail = red.String(steps[i].Detail)
	}
	return steps, err
}

func check1(ctx context.Context, opts CheckOptions) ([]CheckStep, error) {
	ro := opts.Run
	spec := ro.Test.Run
	var steps []CheckStep
	add := func(name string, err error, kind Kind, ok string) bool {
		s := CheckStep{Name: name, OK: err == nil, Detail: ok}
		if err != nil {
			s.Detail, s.Kind = err.Error(), kind
			var re *Error
			if errors.As(err, &re) {
				s.Kind = re.Kind
			}
		}
		steps = append(steps, s)
		return err == nil
	}

	if !add("allowlist", checkTarget(spec), KindUsage, allowlistText(spec)) {
		return steps, nil
	}
	add("consent", spec.CheckConsent(ro.Consent), KindUsage, consentText(len(spec.Touches.Commands), ro.Consent.AllowCommands))
	if f := spec.Fault; f != nil {
		var err error
		if !ro.Force {
			stateDir := ro.StateDir
			if stateDir == "" {
				stateDir = DefaultStateDir()
			}
			err = CheckPendingFault(stateDir, f.Target)
		}
		add("fault journal", err, KindUsage, "no fault against "+f.Target+" is pending")
	}
	if b := spec.Baseline; b != nil {
		_, _, err := report.ReadRun(b.Path)
		add("baseline", err, KindUsage, b.Path+" is a run's result")
	}
	for _, c := range spec.Touches.Commands {
		path, err := findCommand(c.Argv[0], c.Dir)
		add("command ("+c.When+")", err, KindHarness, safetext.Argv(c.Argv)+": "+path)
	}
	add("target TLS", loadgen.CheckTLS(ctx, ro.Test.Driver), KindUsage, tlsText(ro.Test.Driver))
	if ro.Test.HasGRPC() && allOK(steps) {
		// The message types, from the descriptor set or the server's
		// reflection service, and one message encoded per call; left
		// out once a step has failed, since reflection asks the target.
		text, err := ro.Test.ResolveGRPC(ctx)
		add("grpc descriptors", err, KindUsage, text)
	}
	if err := ctx.Err(); err != nil {
		return steps, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	}

	if spec.Metrics != nil {
		dir, err := os.MkdirTemp("", "trigger-check-")
		if err != nil {
			return steps, failf(KindHarness, "temporary folder: %w", err)
		}
		defer os.RemoveAll(dir)
		ro.OutDir = dir
		var notes []string
		logf := ro.Logf
		ro.Logf = func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }
		mets, err := openMetrics(ctx, ro, prometheus.NewRegistry())
		ro.Logf = logf
		if err != nil && ctx.Err() != nil {
			return steps, &Error{Kind: KindInterrupted, Err: ErrInterrupted}
		}
		if add("prometheus", err, KindHarness, "reached "+prometheusText(spec.Metrics.Embedded, mets)+"; each query below") {
			defer mets.close()
			for _, sig := range mets.signals() {
				add("query "+sig.Name, nil, 0, queryText(sig, notes))
			}
			if len(spec.Brakes) == 0 {
				return steps, checkTarget1(ctx, opts, steps, add)
			}
			brk, err := newBrakes(ro, mets)
			if add("brakes", err, KindUsage, fmt.Sprintf("%d stop condition(s) read", len(spec.Brakes))) {
				ev := brk.check(ctx)
				brk.stop()
				var fired error
				if ev != nil {
					fired = &Error{Kind: KindStopped, Err: fmt.Errorf("%w before any load: %s", ErrStopped, ev.reason)}
				}
				add("brakes hold", fired, KindStopped, "no stop condition fires now")
			}
		}
	}
	return steps, checkTarget1(ctx, opts, steps, add)
}

// checkTarget1 is the check's last step: one request to the target, sent
// as a first attempt is, unless NoRequest or a step before failed (a run
// would have stopped there with nothing sent).
func checkTarget1(ctx context.Context, opts CheckOptions, before []CheckStep, add func(string, error, Kind, string) bool) error {
	if err := ctx.Err(); err != nil {
		return &Error{Kind: KindInterrupted, Err: ErrInterrupted}
	}
	if opts.NoRequest {
		return nil
	}
	for _, s := range before {
		if !s.OK {
			return nil
		}
	}
	res, err := loadgen.Probe(ctx, opts.Run.Test.Driver)
	if err == nil && res.Outcome != vocab.OutcomeOK {
		err = fmt.Errorf("%s %s: %s after %s; a run would find the baseline failing (exit 3)", res.Method, res.URL, probeAnswer(res), analysis.FormatSeconds(res.Latency.Seconds()))
		add("target", &Error{Kind: KindInconclusive, Err: err}, KindInconclusive, "")
		return nil
	}
	add("target", err, KindUsage, fmt.Sprintf("%s %s: %s in %.1f ms (one request, not retried)", res.Method, res.URL, probeAnswer(res), float64(res.Latency)/float64(time.Millisecond)))
	return nil
}

// allOK reports whether every step so far passed.
func allOK(steps []CheckStep) bool {
	for _, s := range steps {
		if !s.OK {
			return false
		}
	}
	return true
}

// findCommand is where a command's program is: a path that exists and is
// executable (relative to dir, where the command runs), or a name found in
// PATH.
func findCommand(name, dir string) (string, error) {
	look := name
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) && dir != "" {
		look = filepath.Join(dir, name)
	}
	path, err := exec.LookPath(look)
	if err != nil {
		return "", fmt.Errorf("%s: %w; a run would fail when it comes to run it", name, err)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// allowlistText names the hosts the run sends to and what it sends each.
func allowlistText(spec convert.Run) string {
	var parts []string
	for _, h := range spec.Touches.Hosts {
		parts = append(parts, h.For+" to "+h.Origin)
	}
	if len(parts) == 0 {
		return "every host the run sends to is in allow_hosts"
	}
	return "every host the run sends to is in allow_hosts: " + strings.Join(parts, "; ")
}

// consentText says what the scenario asks beyond its load.
func consentText(commands int, allowed bool) string {
	switch {
	case commands == 0:
		return "the scenario runs no command; its secrets go only where --secret-hosts allows"
	case allowed:
		return fmt.Sprintf("the scenario runs %d command(s), allowed by --allow-commands", commands)
	}
	return fmt.Sprintf("the scenario runs %d command(s)", commands)
}

// tlsText says what the TLS step found.
func tlsText(cfg loadgen.Config) string {
	if strings.HasPrefix(cfg.Request.URL, "https://") || (len(cfg.Mix) > 0 && strings.HasPrefix(cfg.Mix[0].URL, "https://")) {
		return "the handshake with the target succeeded (or the target could not be reached: the request below says)"
	}
	if strings.HasPrefix(cfg.Request.URL, "grpc://") {
		return "plaintext gRPC (h2c): no handshake"
	}
	if strings.HasPrefix(cfg.Request.URL, "grpcs://") {
		return "gRPC over TLS: the handshake is the first call's (and reflection's, when the types come from it)"
	}
	return "plain HTTP: no handshake"
}

// prometheusText names the server the check reached.
func prometheusText(embedded bool, m *metrics) string {
	if embedded {
		return "the embedded server, scraping the scenario's targets,"
	}
	if m == nil {
		return "Prometheus"
	}
	return m.address
}

// queryText says how a query answered and the scrape interval of its
// series, with what the preflight logged about it.
func queryText(sig convert.Signal, notes []string) string {
	s := "answers"
	for _, n := range notes {
		if strings.Contains(n, "query "+sig.Name+" ") {
			s = n
		}
	}
	if sig.ScrapeS > 0 {
		s += fmt.Sprintf("; scrape interval %s (%s)", analysis.FormatSeconds(sig.ScrapeS), sig.ScrapeFrom)
	}
	return s
}

// probeAnswer is the probe's answer in words.
func probeAnswer(r loadgen.ProbeResult) string {
	if r.GRPC {
		if r.Status > 0 {
			return "answered (" + r.Outcome.String() + ")"
		}
		return "no answer (" + r.Outcome.String() + ")"
	}
	if r.Status > 0 {
		return fmt.Sprintf("answered %d (%s)", r.Status, r.Outcome)
	}
	return "no answer (" + r.Outcome.String() + ")"
}
