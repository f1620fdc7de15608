package scenarios

import (
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/vocab"
)

// OnTrap is what a run does once it has judged the service trapped (block
// "on_trap"), and how long it then watches for the service to come back.
type OnTrap struct {
	// Action is TrapDrop (demand to zero), TrapRate (demand to Rate) or
	// TrapCommand (run Command, keep baseline demand).
	Action  vocab.TrapAction
	Rate    float64  // first attempts per second for Action "rate"
	Command []string // argv for Action "command"
	// Env is set in Command's environment, on top of the run's: the way
	// to hand it a secret (never its argv).
	Env     map[string]string
	Observe time.Duration // how long to watch after the action; default 2m
}

// DefaultTrapObserve is on_trap.observe.
const DefaultTrapObserve = 2 * time.Minute

// onTrapActions are the names of on_trap.action, in the order they are
// listed to users.
var onTrapActions = vocab.TrapActionNames()

// onTrapSchema is the on_trap block's: attribute names are the snake_case
// of OnTrap's fields.
var onTrapSchema = &hcl.BodySchema{Attributes: attrs("action", "rate", "command", "env", "observe")}

// decodeOnTrap decodes the on_trap block.
func (d *decoder) decodeOnTrap(blk *hcl.Block) *OnTrap {
	b := d.open("on_trap", "on_trap", blk.Body, blk.DefRange, schemaOf("on_trap"))
	t := &OnTrap{
		Action:  enum(b, "action", "on_trap action", vocab.TrapDrop, onTrapActions, vocab.ParseTrapAction),
		Rate:    b.num("rate", 0),
		Command: b.strList("command", nil),
		Env:     b.strMap("env"),
		Observe: b.duration("observe", DefaultTrapObserve),
	}
	b.require("action", `what to do once the service is judged trapped: one of `+quoteList(onTrapActions)+`.`)
	return t
}

// onTrap checks the on_trap block: its action and what the action needs.
func (v *validator) onTrap() {
	t := v.s.OnTrap
	if t == nil || !v.present("on_trap") {
		return
	}
	src := v.d.src
	// An action missing, of the wrong type or unknown was reported while
	// decoding; what it needs is checked only for a known one.
	known := src.has("on_trap.action") && src.ok("on_trap.action")
	v.errorf(t.Rate < 0, "on_trap.rate", "Value out of range", "rate is first attempts per second after the action and must not be negative. Got %g.", t.Rate)
	v.errorf(t.Rate > MaxBaseline, "on_trap.rate", "Value out of range", "rate is first attempts per second after the action and may be at most 1e6 (a million per second). Got %g.", t.Rate)
	switch {
	case !known:
	case t.Action == vocab.TrapRate:
		v.errorf(!src.has("on_trap.rate") && src.ok("on_trap.rate"), "on_trap", "Missing rate",
			"action = \"rate\" sets demand to rate first attempts per second: add rate = ..., e.g. rate = 10.")
	case t.Action == vocab.TrapCommand:
		v.errorf(!src.has("on_trap.command") && src.ok("on_trap.command"), "on_trap", "Missing command",
			"action = \"command\" runs a command: add command = [\"PROGRAM\", \"ARG\", ...].")
		v.errorf(src.has("on_trap.command") && (len(t.Command) == 0 || strings.TrimSpace(t.Command[0]) == ""), "on_trap.command", "Empty command",
			"command is an argv list whose first element is the program to run.")
	}
	v.warnf(known && t.Action != vocab.TrapRate && src.has("on_trap.rate"), "on_trap.rate", "Setting ignored",
		"rate is used only with action = \"rate\"; this on_trap has action = %q.", t.Action)
	v.warnf(known && t.Action != vocab.TrapCommand && src.has("on_trap.command"), "on_trap.command", "Setting ignored",
		"command is used only with action = \"command\"; this on_trap has action = %q.", t.Action)
	v.warnf(known && t.Action != vocab.TrapCommand && src.has("on_trap.env"), "on_trap.env", "Setting ignored",
		"env is used only with action = \"command\"; this on_trap has action = %q.", t.Action)
	v.commandEnv("on_trap", t.Env, "command")
	v.positiveDur(t.Observe, "on_trap.observe", "observe", "how long to watch after the action")
}
