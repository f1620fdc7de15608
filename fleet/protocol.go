package fleet

import (
	"time"

	"github.com/trigger-test/trigger/loadgen"
)

// The protocol's paths and timings.
const (
	AssignmentPath = "/v1/assignment"
	ReportPath     = "/v1/report"
	// Silence is how long an agent goes without a Control before it stops
	// its driver and exits, and how long the coordinator goes without a
	// report from an agent before it declares it lost.
	Silence = 3 * time.Second
	// ReportEvery is how often an agent reports (and hears the coordinator).
	ReportEvery = 250 * time.Millisecond
	// MaxReportSeconds bounds the seconds one report carries; an agent
	// behind sends the rest in the next ones.
	MaxReportSeconds = 64
	// maxBody bounds a report's or an assignment's body, bytes.
	maxBody = 8 << 20
)

// Assignment is what an agent runs: the scenario as the coordinator read
// it, and its place among the agents.
type Assignment struct {
	RunID  string            `json:"run_id"`
	Index  int               `json:"index"`
	Agents int               `json:"agents"`
	File   string            `json:"file"`   // the scenario's file name, for diagnostics
	Source []byte            `json:"source"` // its HCL text
	Vars   map[string]string `json:"vars"`   // --var overrides
	Seed   uint64            `json:"seed"`   // the run's seed; Share derives the agent's
	// MaxDurationS is how long after the start instant the agent stops by
	// itself, seconds.
	MaxDurationS float64 `json:"max_duration_s"`
}

// Report is what an agent sends every ReportEvery.
type Report struct {
	Index int `json:"index"`
	// Ready: the driver is built and the allowlist checked; the agent waits
	// for the start instant.
	Ready bool `json:"ready"`
	// Error: the agent cannot run (scenario, allowlist, driver); it exits.
	Error string `json:"error,omitempty"`
	// StartedUnixNS is the wall-clock instant the agent's driver started,
	// nanoseconds since the Unix epoch (0 until it has).
	StartedUnixNS int64 `json:"started_unix_ns,omitempty"`
	// Seconds are the driver's completed seconds from index From on.
	From    int              `json:"from"`
	Seconds []loadgen.Second `json:"seconds,omitempty"`
	// Cohorts are the driver's cohorts from index CohortsFrom on (the
	// earlier ones are closed and were sent before).
	CohortsFrom int              `json:"cohorts_from"`
	Cohorts     []loadgen.Cohort `json:"cohorts,omitempty"`
	// Final: the driver has returned and every second, the last partial
	// one included, is in this report or was in an earlier one.
	Final bool `json:"final,omitempty"`
	// Interrupted says why the agent stopped its driver before the
	// coordinator asked it to (a signal: SIGTERM from an eviction, a
	// Ctrl-C); "" when it did not. Its share of the load is then missing
	// and the attempts it cut short are no failures of the service: the
	// coordinator calls it lost.
	Interrupted string `json:"interrupted,omitempty"`
}

// Control is the coordinator's answer to a report.
type Control struct {
	// Have is how many of the agent's seconds the coordinator holds: the
	// next report starts there.
	Have int `json:"have"`
	// StartUnixNS is the common start instant, nanoseconds since the Unix
	// epoch; 0 until every agent is ready and the run starts.
	StartUnixNS int64 `json:"start_unix_ns,omitempty"`
	// Stop: cancel the driver, send the final report and exit.
	Stop bool `json:"stop,omitempty"`
	// Replan is the latest change of schedule; an agent applies each Seq once.
	Replan *Replan `json:"replan,omitempty"`
}

// Replan replaces the rest of every agent's schedule at one instant of
// their drivers' clocks, so a spike starts together.
type Replan struct {
	Seq    int             `json:"seq"`
	AtS    float64         `json:"at_s"`   // seconds since the start instant
	Stages []loadgen.Stage `json:"stages"` // the whole run's rates; each agent takes its share
}
