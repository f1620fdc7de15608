package convert

import (
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/scenarios"
)

// touchesSection is the scenario's Touches as the result document holds
// them, a sensitive value in a command's argv replaced; nil when the
// scenario touches nothing beyond its load.
func touchesSection(t scenarios.Touches, secrets []string) *analysis.Touches {
	out := &analysis.Touches{}
	for _, h := range t.Hosts {
		out.Hosts = append(out.Hosts, analysis.HostTouch{Origin: h.Origin, For: h.For})
	}
	for _, c := range t.Commands {
		out.Commands = append(out.Commands, analysis.CommandTouch{When: c.When, Argv: redactAll(c.Argv, secrets), Dir: c.Dir, Env: c.Env})
	}
	for _, s := range t.Secrets {
		out.Secrets = append(out.Secrets, analysis.SecretTouch{What: s.What, As: s.As, Origin: s.Origin, Local: s.Local})
	}
	for _, f := range t.Files {
		out.Files = append(out.Files, analysis.FileTouch{Path: f.Path, For: f.For})
	}
	if out.Empty() {
		return nil
	}
	return out
}

// redactAll is argv with every secret's text replaced by
// scenarios.SensitiveValue.
func redactAll(argv, secrets []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for _, s := range secrets {
			if s != "" {
				a = strings.ReplaceAll(a, s, scenarios.SensitiveValue)
			}
		}
		out[i] = a
	}
	return out
}
