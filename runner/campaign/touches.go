package campaign

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// maxCheckedSizes bounds the sizes checkCells reads the scenario at before
// a capacity search (each a parse of a few milliseconds); a search that
// can reach more has the rest checked as each cell is prepared.
const maxCheckedSizes = 512

// checkCells reads the scenario at every size a capacity search can try
// (up to maxCheckedSizes) and refuses the whole campaign, a usage error,
// before anything is sent when one of them touches what the operator was
// not shown (sameTouches). Other searches do not read the scenario again.
func (cp *campaign) checkCells() error {
	c := cp.scenario.Campaign
	if c.Search != vocab.SearchCapacity {
		return nil
	}
	for _, size := range reachableSizes(c.From, c.To, c.Precision, maxCheckedSizes) {
		if _, err := cp.readAt(size); err != nil {
			return &runner.Error{Kind: runner.KindUsage, Err: fmt.Errorf("%w; nothing was sent", err)}
		}
	}
	return nil
}

// reachableSizes is every size a bracket search from from to to can try,
// whatever each cell shows, at most limit of them, in the order first
// reached (from first).
func reachableSizes(from, to, precision float64, limit int) []float64 {
	var out []float64
	var walk func(b analysis.Bracket, depth int)
	walk = func(b analysis.Bracket, depth int) {
		size, end := b.Next()
		if end != "" || depth > 200 || len(out) >= limit {
			return
		}
		if !slices.Contains(out, size) {
			out = append(out, size)
		}
		for _, bad := range []bool{false, true} {
			nb := b
			nb.Record(size, bad)
			walk(nb, depth+1)
		}
	}
	walk(analysis.NewBracket(from, to, precision), 0)
	return out
}

// readAt is the scenario read again with the capacity variable set to the
// capacity a cell of the given loss leaves, 1 − size; an error when it
// cannot be read or when it touches anything the operator was not shown
// (sameTouches).
func (cp *campaign) readAt(size float64) (*scenarios.Scenario, error) {
	base := cp.scenario
	name := base.Campaign.CapacityVariable
	vars := maps.Clone(cp.opts.Vars)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[name] = strconv.FormatFloat(1-size, 'g', 6, 64)
	s, err := scenarios.ParseWith(base.File, base.Source, scenarios.Options{Vars: vars, AllowFiles: base.AllowFiles})
	if err != nil {
		return nil, fmt.Errorf("the scenario with %s = %s: %w", name, vars[name], err)
	}
	if err := sameTouches(base, s, name); err != nil {
		return nil, err
	}
	return s, nil
}

// sameTouches refuses a cell's scenario that touches anything the
// listing (plan, the consent refusal, the confirmation: base's Touches)
// did not show (docs/safety.md, "Running a scenario you did not write"):
// its servers, secrets and files must be base's, and its commands base's
// with only the capacity variable's value (as base was read with it) in
// each argument replaced by the cell's. A command chosen by the value
// (var.f == 0.25 ? "echo" : "rm") is refused, both lines escaped.
func sameTouches(base, cell *scenarios.Scenario, name string) error {
	bt, ct := base.Touches, cell.Touches
	from, to := scenarios.VariableText(base.Variables[name]), scenarios.VariableText(cell.Variables[name])
	where := fmt.Sprintf("a cell with %s = %s", name, safetext.Line(to))
	if !reflect.DeepEqual(bt.Hosts, ct.Hosts) || !reflect.DeepEqual(bt.Secrets, ct.Secrets) || !reflect.DeepEqual(bt.Files, ct.Files) {
		return fmt.Errorf("%s contacts servers, sends secrets or reads files the listing (with %s = %s) does not show; a campaign's cells may differ only in the capacity they leave",
			where, name, safetext.Line(from))
	}
	if len(bt.Commands) != len(ct.Commands) {
		return fmt.Errorf("%s runs %d commands, the listing (with %s = %s) shows %d", where, len(ct.Commands), name, safetext.Line(from), len(bt.Commands))
	}
	for i, b := range bt.Commands {
		c := ct.Commands[i]
		if sameCommand(b, c, from, to) {
			continue
		}
		secrets := append(slices.Clone(base.Secrets), cell.Secrets...)
		return fmt.Errorf("%s runs a command the listing does not show: a cell's commands must be the listed ones with %s's value (%s) replaced by the cell's, and nothing else\n  listed:    %s\n  this cell: %s",
			where, name, safetext.Line(from), commandLine(b, secrets), commandLine(c, secrets))
	}
	return nil
}

// sameCommand says whether c is b with every from in its arguments
// replaced by to: the same moment, folder and environment names.
func sameCommand(b, c scenarios.CommandUse, from, to string) bool {
	if b.When != c.When || b.Dir != c.Dir || !slices.Equal(b.Env, c.Env) || len(b.Argv) != len(c.Argv) {
		return false
	}
	for i, a := range b.Argv {
		want := a
		if from != "" {
			want = strings.ReplaceAll(a, from, to)
		}
		if c.Argv[i] != want {
			return false
		}
	}
	return true
}

// commandLine is a command as the listing shows it, every text escaped
// and every secret's text replaced by scenarios.SensitiveValue.
func commandLine(c scenarios.CommandUse, secrets []string) string {
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		for _, s := range secrets {
			if s != "" {
				a = strings.ReplaceAll(a, s, scenarios.SensitiveValue)
			}
		}
		argv[i] = a
	}
	out := safetext.Line(c.When) + ": " + safetext.Argv(argv)
	if c.Dir != "" {
		out += "   in " + safetext.Arg(c.Dir)
	}
	if len(c.Env) > 0 {
		out += "   with environment " + safetext.Line(strings.Join(c.Env, ", "))
	}
	return out
}
