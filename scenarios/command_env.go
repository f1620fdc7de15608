package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// A command's secrets go through its environment, never its argv: every
// user of the machine reads a process's arguments (ps, /proc), and the
// run logs a command's argv in fault.log and keeps it in the fault
// journal. A fault's start and stop and an on_trap command take `env =
// { NAME = expr }`; the child gets each NAME=value on top of the run's
// own environment, and the logs, the journal and the registry keep the
// names only (docs/safety.md, "Running a scenario you did not write"). A
// value computed from a sensitive variable (or from the variables a
// webhook is built from) in a command's argv is refused while the
// scenario is read, pointing at env.

// MaxCommandEnv is the most variables one command's env may set.
const MaxCommandEnv = 64

// envName is what a command's env may name: a POSIX environment
// variable.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// EnvNames are env's names, sorted: what the logs, the journal and
// Touches show of a command's environment.
func EnvNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// commandEnv checks the env attribute of the block at block (its names),
// and that no argv attribute of it holds a secret.
func (v *validator) commandEnv(block string, env map[string]string, argvs ...string) {
	src := v.d.src
	path := block + ".env"
	v.errorf(len(env) > MaxCommandEnv, path, "Too many environment variables",
		"env may set at most %d variables; it sets %d.", MaxCommandEnv, len(env))
	for _, name := range EnvNames(env) {
		v.errorf(!envName.MatchString(name), fmt.Sprintf("%s[%s]", path, name), "Invalid environment variable name",
			"env's names are environment variable names: a letter or _, then letters, digits and _ (got %q).", name)
	}
	for _, a := range argvs {
		p := block + "." + a
		if !src.has(p) || !v.d.secretIn(p) {
			continue
		}
		v.errorf(true, p, "Secret in a command line",
			"%s holds a value computed from a sensitive variable. A command's arguments are visible to every user of the machine (ps) and are logged in fault.log; "+
				"pass the value through the command's environment instead: env = { TOKEN = var.token }, and read it there, e.g. [\"sh\", \"-c\", \"kubectl --token=\\\"$TOKEN\\\" ...\"].", a)
	}
}

// secretIn reports whether the attribute at path was computed from a
// sensitive variable, or reads a variable notify.webhook is built from.
func (d *decoder) secretIn(path string) bool {
	if d.src.sensitive[path] {
		return true
	}
	a := d.src.attrs[path]
	if a == nil {
		return false
	}
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		if at, ok := tr[1].(hcl.TraverseAttr); ok && slices.Contains(d.webhookVars, at.Name) {
			return true
		}
	}
	return false
}

// envSecretNames are the names in the env at path whose values were
// computed from a sensitive variable, sorted; all of env's names when
// that cannot be told.
func (d *decoder) envSecretNames(path string, env map[string]string) []string {
	if keys := d.src.sensitiveKeys[path]; len(keys) > 0 {
		keys = slices.Clone(keys)
		slices.Sort(keys)
		return slices.Compact(keys)
	}
	return EnvNames(env)
}

// inEnvironment says how secrets reach a command through env: "in
// environment variable TOKEN", "in environment variables A, B".
func inEnvironment(names []string) string {
	if len(names) == 1 {
		return "in environment variable " + names[0]
	}
	return "in environment variables " + strings.Join(names, ", ")
}
