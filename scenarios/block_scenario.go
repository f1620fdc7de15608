package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// Scenario is one decoded and validated trigger test.
type Scenario struct {
	// File is the path the scenario was read from ("" for in-memory sources).
	File string
	// Source is the scenario's text as it was read, once: whatever reads
	// it again (a fleet's agents) gets these bytes, not the file, which a
	// pipe or a process substitution cannot give twice.
	Source []byte
	// Hash identifies the test: the first 16 hex digits of the SHA-256 of
	// Source without the gate and notify blocks' bodies (testHash).
	Hash string
	// Name is the label of the scenario block.
	Name string
	// Description is free text from the scenario block.
	Description string
	// MaxDuration is the hard maximum wall time of a run. Zero means the
	// default: warmup + spike + observe (+ on_trap observe) + 1 minute.
	MaxDuration time.Duration

	// Data are the data sets of the data blocks, their files read.
	Data       []vocab.DataSet
	Target     Target
	Client     Client
	Layers     []Layer // retry layers believed to sit between client and service, in order
	Service    Service
	Load       LoadProfile
	Prometheus *Prometheus // nil when the scenario has no prometheus block
	Recovery   Recovery
	OnTrap     *OnTrap // nil when the scenario has no on_trap block
	// Fault is the scenario's capacity trigger; nil when it has none (then
	// load.spike is its trigger). With a fault, Load.Spike is baseline
	// demand (k = 1) for the fault's Δ.
	Fault *Fault
	Gate  Gate
	// Notify is where the run posts its outcome; nil without a notify block.
	Notify *Notify
	// Campaign is what trigger campaign maps; nil without a campaign
	// block. ExpectedSpike is what production brings; nil without one.
	Campaign      *Campaign
	ExpectedSpike *ExpectedSpike
	// StopWhen are the run's brakes, in the order declared.
	StopWhen []StopCondition

	// Variables holds the final value of every declared variable after
	// defaults and --var overrides, rendered as HCL literals (for reports);
	// a variable declared `sensitive = true` reads SensitiveValue.
	Variables map[string]string
	// Secrets holds the values of the sensitive variables as they may
	// appear in text (raw and as HCL literals), for redaction from logs,
	// errors and reports; never serialised.
	Secrets []string `json:"-"`

	// KeptSource is Source as a run keeps it in its folder: the default of
	// every sensitive variable replaced by "(sensitive)" (a --var
	// overriding it left the default in clear). The run replaces the
	// values in Secrets on top.
	KeptSource []byte `json:"-"`
	// AllowFiles are the folders besides its own the scenario was allowed
	// to read files from (Options.AllowFiles), for whatever reads it again
	// (a campaign's cells).
	AllowFiles []string `json:"-"`
	// Touches is what a run of the scenario does outside its process
	// besides its load: servers, commands, secrets and files.
	Touches Touches `json:"-"`

	// Warnings holds problems that do not make the scenario invalid (for
	// example scrape targets given with a remote Prometheus), rendered like
	// errors with Warnings.Render; nil when there are none.
	Warnings *Error `json:"-"`
}

// scenarioSchema is the scenario block's: attribute names are the snake_case
// of Scenario's fields.
var scenarioSchema = &hcl.BodySchema{Attributes: attrs("description", "max_duration")}

// decodeScenarioBlock decodes the scenario block into s: its label, the
// description and max_duration.
func (d *decoder) decodeScenarioBlock(blk *hcl.Block, s *Scenario) {
	b := d.open("scenario", "scenario", blk.Body, blk.DefRange, schemaOf("scenario"))
	s.Name = blk.Labels[0]
	d.checkName(blk, "scenario", "Invalid scenario name",
		"names the run's folder (out/NAME-TIMESTAMP) and appears in every report")
	s.Description = b.str("description", "")
	s.MaxDuration = b.duration("max_duration", 0)
}

// scenario checks the scenario block's max_duration.
func (v *validator) scenario() {
	if !v.present("scenario") {
		return
	}
	v.nonNegDur(v.s.MaxDuration, "scenario.max_duration", "max_duration", "the hard limit on a run's wall time (0: the default)")
}

// duration checks that max_duration leaves room for the run it limits.
func (v *validator) duration() {
	if v.s.MaxDuration <= 0 || !v.present("load") || !v.d.src.ok("scenario.max_duration") {
		return
	}
	l := v.s.Load
	run := l.Warmup + l.Spike.Duration + l.Observe
	v.errorf(v.s.MaxDuration < run, "scenario.max_duration", "Run longer than max_duration",
		"max_duration = %s would stop the run before it ends: warmup %s + spike %s + observe %s = %s.",
		v.s.MaxDuration, l.Warmup, l.Spike.Duration, l.Observe, run)
}
