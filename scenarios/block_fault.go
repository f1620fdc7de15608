package scenarios

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// Fault is a capacity trigger (block `fault "NAME"`): a command that takes
// capacity away, held for Duration, and a command that puts it back,
// which a run always runs (docs/safety.md, "Faults are always put back").
type Fault struct {
	Name string
	// Start and Stop are argv lists, run without a shell from Dir (the
	// scenario's folder).
	Start, Stop []string
	Dir         string
	// Env is set in both commands' environment, on top of the run's: the
	// way to hand them a secret (never their argv).
	Env map[string]string
	// Duration is Δ, how long the fault holds, from Start's end to Stop.
	Duration time.Duration
	// Capacity is C′/C while the fault holds, in (0, 1): what plan and the
	// models take the service's capacity to drop to.
	Capacity float64
	// Timeout bounds each command; default DefaultFaultTimeout.
	Timeout time.Duration
}

// DefaultFaultTimeout is fault.timeout, vocab's (a restore whose journal
// gives none uses it too).
const DefaultFaultTimeout = vocab.DefaultFaultTimeout

// MaxFaults is the most fault blocks a scenario may have (one, for now).
const MaxFaults = 1

// faultSchema is a fault block's: attribute names are the snake_case of
// Fault's fields.
var faultSchema = &hcl.BodySchema{Attributes: attrs("start", "stop", "env", "duration", "capacity", "timeout")}

// decodeFault decodes the fault block, if any.
func (d *decoder) decodeFault(top *body) *Fault {
	blks := top.blocks("fault", MaxFaults)
	if len(blks) == 0 {
		return nil
	}
	blk := blks[0]
	b := d.open("fault", "fault", blk.Body, blk.DefRange, schemaOf("fault"))
	d.src.elems["fault.name"] = blk.LabelRanges[0]
	d.checkName(blk, "fault", "Invalid fault name", "names the fault in the timeline and the reports")
	dir, err := filepath.Abs(d.dir)
	if err != nil {
		dir = d.dir
	}
	f := &Fault{
		Name:     blk.Labels[0],
		Start:    b.strList("start", nil),
		Stop:     b.strList("stop", nil),
		Env:      b.strMap("env"),
		Dir:      dir,
		Duration: b.duration("duration", 0),
		Capacity: b.num("capacity", 0),
		Timeout:  b.duration("timeout", DefaultFaultTimeout),
	}
	b.require("start", `the command that takes capacity away, an argv list run without a shell, e.g. start = ["kubectl", "scale", "deploy/checkout", "--replicas=2"].`)
	b.require("stop", `the command that puts it back, which every run runs, e.g. stop = ["kubectl", "scale", "deploy/checkout", "--replicas=4"].`)
	b.require("duration", `Δ, how long the fault holds, e.g. duration = "20s".`)
	b.require("capacity", `C′/C while the fault holds, what plan and the models use, e.g. capacity = 0.5.`)
	return f
}

// fault checks the fault block: both commands argv lists, Δ and the
// timeout positive, the capacity a fraction; and a fault instead of a
// spike, for now.
func (v *validator) fault() {
	f := v.s.Fault
	if f == nil || !v.present("fault") {
		return
	}
	src := v.d.src
	for _, name := range []string{"start", "stop"} {
		argv := f.Start
		if name == "stop" {
			argv = f.Stop
		}
		v.errorf(src.has("fault."+name) && (len(argv) == 0 || strings.TrimSpace(argv[0]) == ""), "fault."+name, "Empty command",
			"%s is an argv list whose first element is the program to run (no shell: write [\"sh\", \"-c\", \"...\"] for one).", name)
	}
	v.commandEnv("fault", f.Env, "start", "stop")
	if src.has("fault.duration") {
		v.positiveDur(f.Duration, "fault.duration", "duration", "Δ, how long the fault holds")
	}
	v.positiveDur(f.Timeout, "fault.timeout", "timeout", "the bound on each of the fault's commands")
	v.errorf(src.has("fault.capacity") && !(f.Capacity > 0 && f.Capacity < 1), "fault.capacity", "Value out of range",
		"capacity is C′/C, the share of the service's capacity left while the fault holds, and must be above 0 and below 1. Got %g.", f.Capacity)
	v.errorf(v.present("load.spike"), "load.spike", "A spike and a fault together",
		"A scenario triggers with a load.spike or with a fault; both in one run is not supported yet. Drop one of them (the fault %q runs at the spike's place, after the warmup).", f.Name)
}

// faultSpike is the load a fault runs under: baseline demand (k = 1) for
// the fault's Δ, in the spike's place after the warmup.
func faultSpike(f *Fault) Spike { return Spike{Multiplier: 1, Duration: f.Duration} }
