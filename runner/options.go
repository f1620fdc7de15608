package runner

import (
	"net/http"
	"os"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/fleet"
)

// Options configure one run.
type Options struct {
	// Test is the scenario converted (convert.New); Test.Scenario is the
	// scenario itself.
	Test *convert.Test
	// OutDir receives result.json, timeline.csv and the embedded
	// Prometheus' data; created if missing.
	OutDir string
	// Seed seeds the arrival schedule and the jitter; 0 means 1.
	Seed uint64
	// Progress is called once a second with the run's status; nil = none.
	Progress func(Status)
	// StateDir holds the pending-fault registry; "" means
	// DefaultStateDir(). Force starts a fault even though the registry
	// says one against the same target is pending.
	StateDir string
	Force    bool
	// FaultGuard is the command that starts the fault guard, the journal's
	// path appended (the command line's: its own executable and
	// "fault-guard"): a process of its own that runs a fault's stop if the
	// run dies without (RunFaultGuard). nil: no guard (library use, tests).
	FaultGuard []string
	// Logf prints notes for the user (warnings, actions); nil = none.
	Logf func(format string, args ...any)
	// Consent is what the operator allows beyond the load: the scenario's
	// commands, the hosts its secrets may go to. The run refuses, before
	// anything is sent, a scenario that needs more (convert.Run.CheckConsent).
	Consent convert.Consent
	// Getenv reads the environment variables a scenario names for
	// Prometheus credentials; nil means os.Getenv.
	Getenv func(string) string
	// MetricsListen, when set, serves the driver's trigger_* metrics at
	// http://MetricsListen/metrics for an outside Prometheus to scrape.
	MetricsListen string
	// TrapProbability, when set, is the test's trap_probability section
	// already computed (convert.Test.TrapProbability: repeated runs of one
	// test share it); nil: the run computes it before any load.
	TrapProbability *analysis.TrapProbability
	// Transport overrides the driver's HTTP transport (tests).
	Transport http.RoundTripper
	// AbortFile, when set, is a path whose appearance stops the run's load
	// like a stop condition (exit 5).
	AbortFile string
	// Hurry, when closed (a second interrupt), makes a stopping run stop
	// waiting for late metrics, the driver and the on_trap command, and
	// write what it measured at once. nil = never.
	Hurry <-chan struct{}
	// Overwrite lets the run reuse a non-empty OutDir: the files of the
	// previous run there (its result, timeline, reports and Prometheus
	// data) are removed first. Without it such a folder is refused.
	Overwrite bool
	// Fleet, when set, spreads the load over agents (package fleet)
	// instead of driving it from this process; nil = one in-process driver.
	Fleet *FleetOptions
	// QueryWarmup is how long an embedded Prometheus scrapes before the
	// queries are checked; zero means 3 scrape intervals.
	QueryWarmup time.Duration
	// JudgeHeldDemand ends an on_trap "rate" action as soon as the wait's
	// trend at the held demand is decided (its interval wholly below zero:
	// on the way back; or not falling: still failed), instead of watching
	// the whole observation for the way back (trigger campaign's λ_r).
	JudgeHeldDemand bool
}

// FleetOptions spread a run's load over agents started by an engine.
type FleetOptions struct {
	Engine fleet.Engine
	Agents int // N ≥ 1
	// RunID names the run to the engine (labels, the Job's name); "" =
	// NewRunID.
	RunID string
	// File, Source and Vars are the scenario as read (its file name, HCL
	// text and --var overrides): each agent reads it as the run did, less
	// what its load does not use (fleet.AgentScenario).
	File   string
	Source []byte
	Vars   map[string]string
	// Listen is the coordinator's address ("" = 127.0.0.1:0), Advertise
	// the base URL agents dial, https:// ("" = https:// and the listening
	// address).
	Listen, Advertise string
	// JoinTimeout bounds the wait for every agent to be ready; 0 = 30 s.
	JoinTimeout time.Duration
}

// Status is the run as it stands, for progress lines.
type Status struct {
	Phase     analysis.Phase // PhasePreflight, PhaseWarmup, PhaseSpike, PhaseObserve, PhaseOnTrap, PhaseDone
	Elapsed   time.Duration  // since the load started
	Remaining time.Duration  // until the horizon (an upper bound)
	// RatePerS is first attempts sent in the last second; Attempts,
	// Failed and SuccessRatio are for the last second too.
	RatePerS float64
	Attempts float64
	// Failed is first attempts that failed, whatever the class; Timeouts,
	// Errors and Refused split them: timed out at the client, answered with
	// an error status (a proxy's 504 among them), connection refused. Auth
	// is the part of Errors answered 401 or 403 (credentials refused).
	Failed, Timeouts, Errors, Refused, Auth float64
	SuccessRatio                            float64 // first attempts; NaN when none completed
	// WaitS is the latest sample of the wait the verdict is judged on, from
	// WaitSource; NaN when unknown.
	WaitS      float64
	WaitSource analysis.WaitSource
	// WaitBlind names the wait sources found blind (they cannot show the
	// wait: WaitS never comes from them), comma-separated; "" for none.
	WaitBlind string
	// Verdict is the verdict so far ("" while undecided), Note a word on why.
	Verdict analysis.Verdict
	Note    string
	// Requests are each request of a mix's first attempts in the last
	// second, in the mix's order; nil for one request.
	Requests []RequestStatus
}

// RequestStatus is one request of the mix in the last second: its name,
// and the share of its first attempts completed that succeeded (NaN
// when none completed).
type RequestStatus struct {
	Name         string
	SuccessRatio float64
}

// Result is a finished run: its document and timeline, as also written to
// OutDir.
type Result struct {
	Document analysis.Document
	Timeline []analysis.TimelineRow
	OutDir   string
	// Written names the files of OutDir the run's end wrote or completed
	// (timeline.csv, result.json, the reports): a file whose write failed,
	// on a full disk say, is not among them.
	Written []string
	// Start is the wall-clock time at which the run's clock started: row
	// TS of the timeline is TS seconds after it (zero if no second was measured).
	Start time.Time
}

func (o Options) getenv(name string) string {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}
