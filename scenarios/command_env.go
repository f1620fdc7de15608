package scenarios

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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

// commandEnv checks the env attribute of the block at block (its names),
// and that no argv attribute of it holds a secret.
func (v *validator) commandEnv(block string, env map[string]string, argvs ...string) {
	src := v.d.src
	path := block + ".env"
	v.errorf(len(env) > MaxCommandEnv, path, "Too many environment variables",
		"env may set at most %d variables; it sets %d.", MaxCommandEnv, len(env))
	if !v.literalEnvNames(path) {
		// A computed name is neither checked nor shown: it may hold a
		// secret, which the logs and the journal would keep in clear.
		return
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		p := fmt.Sprintf("%s[%s]", path, name)
		v.errorf(!envName.MatchString(name), p, "Invalid environment variable name",
			"env's names are environment variable names: a letter or _, then letters, digits and _ (got %q).", name)
		v.errorf(envName.MatchString(name) && loaderOrShellVar(name), p, "Environment variable not allowed",
			"%s changes what a command runs: the dynamic loader or a shell or interpreter reads it (a library preloaded, a program looked up elsewhere, code run at start). "+
				"The command line plan and the confirmation show must be what runs, so env may not set PATH, IFS, ENV, BASH_ENV, SHELLOPTS, BASHOPTS, CDPATH, PS4, GLOBIGNORE, PROMPT_COMMAND, "+
				"LD_*, DYLD_*, or an interpreter's start-up or library path (PYTHONPATH, PERL5LIB, NODE_OPTIONS, …). Write the program's full path in the command, or set the variable inside it: [\"sh\", \"-c\", \"X=... exec prog\"].", name)
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
	return slices.Sorted(maps.Keys(env))
}

// inEnvironment says how secrets reach a command through env: "in
// environment variable TOKEN", "in environment variables A, B".
func inEnvironment(names []string) string {
	if len(names) == 1 {
		return "in environment variable " + names[0]
	}
	return "in environment variables " + strings.Join(names, ", ")
}

// literalEnvNames reports whether the env attribute at path is written
// out as { NAME = expr, ... } with every NAME a literal (a bare name or a
// string without interpolation), and refuses it, at the offending name,
// when it is not: a name computed from a sensitive variable would be
// written in clear to fault.log, the fault journal and the run's
// registry, which keep a command's env names (docs/safety.md, "Running
// a scenario you did not write"). The names must be known, and shown,
// when the scenario is read.
func (v *validator) literalEnvNames(path string) bool {
	a := v.d.src.attrs[path]
	if a == nil || !v.d.src.ok(path) {
		return true
	}
	obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		v.d.errorf(a.Expr.Range().Ptr(), "Environment variable names not written out",
			"env must be written out as { NAME = value, ... }: its names are shown before a run and kept in its logs, so each must be a literal name; only the values may be computed (e.g. from a sensitive variable).")
		v.d.src.failed[path] = true
		return false
	}
	literal := true
	for _, item := range obj.Items {
		if literalKey(item.KeyExpr) {
			continue
		}
		literal = false
		v.d.errorf(item.KeyExpr.Range().Ptr(), "Environment variable name not literal",
			"An env name must be written as it is, e.g. TOKEN = var.token, not computed: its names are shown before a run and kept in clear in fault.log and the fault journal, so a name computed from a variable (a sensitive one above all) is refused.")
	}
	if !literal {
		v.d.src.failed[path] = true
	}
	return literal
}

// literalKey reports whether an object constructor's key is a literal: a
// bare name (TOKEN) or a string without interpolation ("TOKEN").
func literalKey(e hclsyntax.Expression) bool {
	if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		if k.ForceNonLiteral {
			return false
		}
		if hcl.ExprAsKeyword(k.Wrapped) != "" {
			return true
		}
		e = k.Wrapped
	}
	t, ok := e.(*hclsyntax.TemplateExpr)
	return ok && t.IsStringLiteral()
}

// loaderOrShellVars are the environment variables, besides the LD_ and
// DYLD_ families, that make a shown command run something else: the
// shell's and the dynamic loader's search paths and start-up files, and
// the interpreters' code and library paths.
var loaderOrShellVars = map[string]bool{
	"PATH": true, "IFS": true, "ENV": true, "BASH_ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
	"CDPATH": true, "PS4": true, "GLOBIGNORE": true, "PROMPT_COMMAND": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PERL5LIB": true, "PERLLIB": true, "PERL5OPT": true,
	"RUBYOPT": true, "RUBYLIB": true, "NODE_OPTIONS": true, "NODE_PATH": true, "GCONV_PATH": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true,
}

// loaderOrShellVar reports whether env may not set name (compared
// case-insensitively: Windows' environment is).
func loaderOrShellVar(name string) bool {
	u := strings.ToUpper(name)
	return loaderOrShellVars[u] || strings.HasPrefix(u, "LD_") || strings.HasPrefix(u, "DYLD_")
}
