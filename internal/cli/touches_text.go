package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/scenarios"
)

// touchesText lists what a scenario does outside the process besides its
// load, one line each, indented by indent: the servers it contacts, the
// commands it runs (as a shell would read them, each argument quoted and
// every control character escaped: a "\r" and an erase-line sequence
// used to make a prompt show a harmless command instead), the secrets
// it sends and where, and the files it reads; then what a run needs the
// operator to allow (docs/safety.md, "Running a scenario you did not
// write"). Every text from the scenario goes through safetext.
func touchesText(t *analysis.Touches, indent string) string {
	if t.Empty() {
		return ""
	}
	var b strings.Builder
	line := func(verb, format string, args ...any) {
		fmt.Fprintf(&b, "%s%-14s %s\n", indent, verb, fmt.Sprintf(format, args...))
	}
	for _, h := range t.Hosts {
		line("contacts", "%s (%s)", safetext.Line(h.Origin), safetext.Line(h.For))
	}
	for _, c := range t.Commands {
		where := ""
		if c.Dir != "" {
			where = "   in " + safetext.Arg(c.Dir)
		}
		if len(c.Env) > 0 {
			where += "   with environment " + safetext.Line(strings.Join(c.Env, ", "))
		}
		line("runs", "%s: %s%s", safetext.Line(c.When), safetext.Argv(c.Argv), where)
	}
	var hosts []string
	for _, s := range t.Secrets {
		if s.Local != "" {
			line("hands secret", "%s (%s) to %s", safetext.Line(s.What), safetext.Line(s.As), safetext.Line(s.Local))
			continue
		}
		line("sends secret", "%s (%s) to %s", safetext.Line(s.What), safetext.Line(s.As), safetext.Line(s.Origin))
		if h := hostOfOrigin(s.Origin); h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	for _, f := range t.Files {
		line("reads", "%s (%s)", safetext.Arg(f.Path), safetext.Line(f.For))
	}
	if len(t.Commands) > 0 {
		fmt.Fprintf(&b, "%sA run executes these commands only with --allow-commands.\n", indent)
	}
	if len(hosts) > 0 {
		fmt.Fprintf(&b, "%sA run sends these secrets only with --secret-hosts %s.\n", indent, safetext.Line(strings.Join(hosts, ",")))
	}
	return b.String()
}

// hostOfOrigin is the host of scheme://host:port, normalised as
// allow_hosts entries are.
func hostOfOrigin(origin string) string {
	_, rest, ok := strings.Cut(origin, "://")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
		rest = rest[:i]
	}
	return scenarios.NormalizeHost(rest)
}
