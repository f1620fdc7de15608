package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/runner/report"
	"github.com/trigger-test/trigger/scenarios"
)

// demoSystem is one specimen the demo runs a scenario against.
type demoSystem struct {
	key, title, subtitle string
	config               specimen.Config
	vars                 map[string]string // scenario variables besides the port
	expect               []analysis.Verdict
	// fault: the system runs examples/demo-fault.hcl (a capacity drop)
	// instead of examples/demo.hcl (a spike).
	fault bool
	// grpc: the system runs examples/demo-grpc.hcl against the specimen's
	// gRPC listener.
	grpc bool
}

// demoSystems are the demo's systems; over gRPC (grpc) Systems A and B,
// each specimen with its gRPC listener, without the capacity drop.
func demoSystems(grpc bool) []demoSystem {
	all := allDemoSystems()
	if !grpc {
		return all
	}
	var out []demoSystem
	for _, sys := range all {
		if sys.fault {
			continue
		}
		sys.grpc, sys.config.GRPCAddr = true, "127.0.0.1:0"
		sys.subtitle += ", over gRPC"
		out = append(out, sys)
	}
	return out
}

func allDemoSystems() []demoSystem {
	return []demoSystem{
		{
			key: "system-a", title: "System A", subtitle: "FIFO, serves work its client gave up on",
			config: specimen.Config{Pods: 2, PodRate: 100},
			expect: []analysis.Verdict{analysis.VerdictTrapped, analysis.VerdictMetastable},
		},
		{
			key: "system-a-fault", title: "System A, capacity drop", subtitle: "the same, its pods slowed to a quarter for 5 s",
			config: specimen.Config{Pods: 2, PodRate: 100}, fault: true,
			expect: []analysis.Verdict{analysis.VerdictTrapped, analysis.VerdictMetastable},
		},
		{
			key: "system-b", title: "System B", subtitle: "the same, with an admission bound b = 0.5 s",
			config: specimen.Config{Pods: 2, PodRate: 100, AdmissionBound: 500 * time.Millisecond},
			vars:   map[string]string{"admission_bound": "500ms"},
			expect: []analysis.Verdict{analysis.VerdictRecovered},
		},
	}
}

func newDemoCommand(stdout, stderr io.Writer) *cobra.Command {
	var out string
	var grpc bool
	cmd := &cobra.Command{
		Use:   "demo [--out DIR] [--grpc]",
		Short: "Run a whole trigger test against two example services on loopback",
		Long: `demo starts specimens on loopback ports: System A, which keeps serving
requests whose clients have given up, and System B, the same service with an
admission bound below the client timeout. It runs the same trigger scenario
(examples/demo.hcl) against each, with the embedded Prometheus, and, in
between, System A again with a capacity drop instead of the spike
(examples/demo-fault.hcl: its pods slowed to a quarter for 5 s, and put
back). It prints the answers side by side: System A stays trapped after the
spike and after the capacity drop, System B comes back. Everything it
starts stops when it ends; it takes under three minutes. Reports are
written under --out.

With --grpc it runs Systems A and B over gRPC instead (examples/demo-grpc.hcl:
the same queue model behind the specimens' specimen.Work/Do, the clients'
deadline as grpc-timeout, System B's refusals UNAVAILABLE with a pushback).

It exits 0 when both services behaved as the model says, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = filepath.Join("out", "demo-"+time.Now().Format("20060102-150405"))
			}
			return runDemo(cmd.Context(), out, grpc, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the demo's output folder (default out/demo-TIMESTAMP)")
	cmd.Flags().BoolVar(&grpc, "grpc", false, "run Systems A and B over gRPC (examples/demo-grpc.hcl)")
	cmd.AddCommand(newSetCapacityCommand(stdout))
	return cmd
}

// newSetCapacityCommand is `trigger demo set-capacity`: the demo's fault
// commands, which set a loopback specimen's pods to a share of their rate
// through its /admin/capacity.
func newSetCapacityCommand(stdout io.Writer) *cobra.Command {
	var addr string
	var factor float64
	cmd := &cobra.Command{
		Use:    "set-capacity --addr HOST:PORT --factor F",
		Short:  "Set a loopback specimen's pods to F times their rate (the demo's capacity fault)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			host, _, err := net.SplitHostPort(addr)
			if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--addr %q: want a loopback HOST:PORT, e.g. 127.0.0.1:8080", addr)}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("http://%s/admin/capacity?factor=%g", addr, factor), nil)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return &ExitError{Code: ExitHarness, Err: err}
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			if resp.StatusCode != http.StatusOK {
				return &ExitError{Code: ExitHarness, Err: fmt.Errorf("%s: %s: %s", addr, resp.Status, strings.TrimSpace(string(body)))}
			}
			fmt.Fprintf(stdout, "capacity factor %s", body)
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "", "the specimen's loopback HOST:PORT")
	cmd.Flags().Float64Var(&factor, "factor", 1, "the pods' rate as a share of their own, in (0, 1]")
	return cmd
}

// demoResult is one system's run.
type demoResult struct {
	sys demoSystem
	res *runner.Result
	err error
}

func runDemo(ctx context.Context, out string, grpc bool, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "trigger demo: the same trigger test against two services on loopback; results in %s\n", out)
	var results []demoResult
	for _, sys := range demoSystems(grpc) {
		res, err := runDemoSystem(ctx, sys, out, stderr)
		if errors.Is(ctx.Err(), context.Canceled) {
			return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
		}
		results = append(results, demoResult{sys, res, err})
	}
	if err := printDemoSummary(stdout, results); err != nil {
		return &ExitError{Code: ExitHarness, Err: err}
	}
	var wrong, broken []string
	for _, r := range results {
		switch {
		case r.res == nil || r.res.Document.Observation == nil || r.res.Document.Observation.Inconclusive != "":
			// The harness could not run the test: not a finding about the system.
			broken = append(broken, fmt.Sprintf("%s: %v", r.sys.title, r.err))
		case !contains(r.sys.expect, r.res.Document.Verdict):
			wrong = append(wrong, fmt.Sprintf("%s ended %s, expected %s", r.sys.title, r.res.Document.Verdict, r.sys.expect[0]))
		}
	}
	if len(broken) > 0 {
		return &ExitError{Code: ExitHarness, Err: fmt.Errorf("the demo could not run: %s", strings.Join(broken, "; "))}
	}
	if len(wrong) > 0 {
		return &ExitError{Code: ExitGateFailed, Err: fmt.Errorf("the demo did not show what the model says: %s", strings.Join(wrong, "; "))}
	}
	return nil
}

func contains(vs []analysis.Verdict, v analysis.Verdict) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// runDemoSystem starts one specimen on a free loopback port, runs the demo
// scenario against it, writes the reports and stops the specimen.
func runDemoSystem(ctx context.Context, sys demoSystem, out string, stderr io.Writer) (*runner.Result, error) {
	// The specimen outlives a first Ctrl-C: the run still needs it to
	// measure the seconds before the stop.
	sp, err := specimen.StartLoopback(context.WithoutCancel(ctx), sys.config)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sp.Stop() }()
	addr := sp.Addr

	_, port, _ := net.SplitHostPort(addr)
	vars := map[string]string{"port": port}
	for k, v := range sys.vars {
		vars[k] = v
	}
	name, src := examples.DemoScenarioName, examples.DemoScenario
	if sys.grpc {
		_, gport, _ := net.SplitHostPort(sp.GRPCAddr)
		name, src, vars["grpc_port"] = examples.DemoGRPCScenarioName, examples.DemoGRPCScenario, gport
		addr = sp.GRPCAddr
	}
	if sys.fault {
		name, src = examples.DemoFaultScenarioName, examples.DemoFaultScenario
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		vars["trigger"] = exe
	}
	s, err := scenarios.Parse(name, src, vars)
	if err != nil {
		return nil, err
	}
	if s.Fault != nil {
		// The embedded scenario has no folder of its own: its commands run
		// from here.
		if wd, err := os.Getwd(); err == nil {
			s.Fault.Dir = wd
		}
	}
	fmt.Fprintf(stderr, "\n%s (%s) on %s\n", sys.title, sys.subtitle, addr)
	pp := newProgressPrinter(stderr)
	pp.prefix = sys.title + " "
	dir := filepath.Join(out, sys.key)
	test, err := convert.New(s)
	if err != nil {
		return nil, err
	}
	// The demo's scenarios are the tool's own (examples/), not a user's:
	// the fault's commands are trigger demo set-capacity on the loopback
	// specimen.
	res, err := runner.Run(ctx, runner.Options{Test: test, OutDir: dir, Progress: pp.update, Logf: pp.note,
		Consent: convert.Consent{AllowCommands: true}})
	pp.end()
	return res, err
}

// printDemoSummary sets the two runs side by side.
func printDemoSummary(w io.Writer, results []demoResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	row := func(label string, f func(r demoResult) string) {
		cells := []string{label}
		for _, r := range results {
			cells = append(cells, f(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	doc := func(r demoResult) *analysis.Document {
		if r.res == nil {
			return nil
		}
		return &r.res.Document
	}
	val := func(f func(d *analysis.Document) string) func(r demoResult) string {
		return func(r demoResult) string {
			if d := doc(r); d != nil && d.Observation != nil {
				return f(d)
			}
			return "—"
		}
	}
	fmt.Fprintln(w)
	row("", func(r demoResult) string { return r.sys.title })
	row("", func(r demoResult) string { return r.sys.subtitle })
	row("Verdict", func(r demoResult) string {
		if d := doc(r); d != nil {
			return strings.ToUpper(string(d.Verdict))
		}
		return "error: " + r.err.Error()
	})
	row("Recovery", val(func(d *analysis.Document) string {
		return fmt.Sprintf("%s (predicted %s)", optSeconds(d.RecoveryS), optSeconds(d.Prediction.RecoveryS))
	}))
	row("A_fail (service) / clients", val(func(d *analysis.Document) string {
		if d.Amplification.Measured == nil {
			return "— (no failed state to measure)"
		}
		return fmt.Sprintf("%s / %s", optNum(d.Amplification.Measured), optNum(d.Observation.AmplificationClient))
	}))
	row("First attempts lost", val(func(d *analysis.Document) string {
		return optSeconds(d.Observation.LostWorkS) + " of demand"
	}))
	row("Work served for nobody", val(func(d *analysis.Document) string { return optNum(d.Observation.Abandoned) + " requests" }))
	row("Refused at the door", val(func(d *analysis.Document) string { return optNum(d.Observation.Refused) + " attempts" }))
	row("After on_trap", val(func(d *analysis.Document) string {
		o := d.Observation.OnTrap
		if o == nil {
			return "—"
		}
		if o.RecoveryS == nil {
			return "demand " + o.Action + ": not back"
		}
		return fmt.Sprintf("demand %s: back in %s", o.Action, analysis.FormatSeconds(*o.RecoveryS))
	}))
	row("Gate", val(func(d *analysis.Document) string {
		if d.Gate.Passed {
			return "passed"
		}
		return "FAILED"
	}))
	row("Report", func(r demoResult) string {
		if r.res == nil || !slices.Contains(r.res.Written, report.HTMLFile) {
			return "—"
		}
		return filepath.Join(r.res.OutDir, report.HTMLFile)
	})
	return tw.Flush()
}

// optSeconds prints a nullable duration in seconds ("never" when null).
func optSeconds(p *float64) string {
	if p == nil {
		return "never"
	}
	return analysis.FormatSeconds(*p)
}
