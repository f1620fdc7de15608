package fleet

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// AgentScenarioOf is AgentScenario of the agents' source: s when it was
// read from source (as a run's convert.Test keeps it), else source read
// again from file with vars (the runner does not read scenarios itself).
func AgentScenarioOf(s *scenarios.Scenario, file string, source []byte, vars map[string]string) ([]byte, map[string]string, error) {
	if s == nil || !bytes.Equal(s.Source, source) {
		var err error
		if s, err = scenarios.Parse(file, source, vars); err != nil {
			return nil, nil, err
		}
	}
	return AgentScenario(s, vars)
}

// AgentScenario is the scenario as the agents get it (Config.Source and
// Config.Vars): what an agent needs to build its load, and no secret it
// does not need. The notify block is left out (the coordinator posts the
// outcome; its webhook is a secret), and every secret variable (declared
// sensitive, or a part of the webhook) whose value the load does not use
// reads scenarios.SensitiveValue, in its default and in its --var value.
// "The load does not use it" is checked, not guessed: with the
// placeholder the scenario must still read and give the very driver
// configuration it gives with the value (a secret in a header, a URL or a
// body does change it, and is sent; one in a fault's command or a
// Prometheus query does not, and is not). s is the scenario as the run
// read it, with its options' vars.
func AgentScenario(s *scenarios.Scenario, vars map[string]string) ([]byte, map[string]string, error) {
	file := s.File
	if file == "" {
		file = "scenario.hcl"
	}
	parse := func(src []byte, vars map[string]string) (*convert.Test, error) {
		sc, err := scenarios.ParseWith(file, src, scenarios.Options{Vars: vars, AllowFiles: s.AllowFiles})
		if err != nil {
			return nil, err
		}
		return convert.New(sc)
	}
	f, diags := hclwrite.ParseConfig(s.Source, file, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("the scenario for the agents: %s", diags.Error())
	}
	for _, b := range f.Body().Blocks() {
		if b.Type() == "notify" {
			f.Body().RemoveBlock(b)
		}
	}
	base := f.Bytes()
	want, err := parse(base, vars)
	if err != nil {
		return nil, nil, fmt.Errorf("the scenario without its notify block: %w", err)
	}
	var secret []string
	for name, v := range s.Variables {
		if v == scenarios.SensitiveValue {
			secret = append(secret, name)
		}
	}
	sort.Strings(secret)
	hidden := map[string]bool{}
	src, out := base, copyVars(vars)
	for _, name := range secret {
		hidden[name] = true
		trySrc, tryVars := withPlaceholders(base, file, vars, hidden)
		if got, err := parse(trySrc, tryVars); err != nil || !reflect.DeepEqual(got.Driver, want.Driver) {
			delete(hidden, name) // the load uses it: the agents need its value
			continue
		}
		src, out = trySrc, tryVars
	}
	return src, out, nil
}

// withPlaceholders is src and vars with the variables in hidden reading
// scenarios.SensitiveValue: their defaults, and their --var values.
func withPlaceholders(src []byte, file string, vars map[string]string, hidden map[string]bool) ([]byte, map[string]string) {
	f, diags := hclwrite.ParseConfig(src, file, hcl.InitialPos)
	if diags.HasErrors() {
		return src, vars
	}
	for _, b := range f.Body().Blocks() {
		if b.Type() != "variable" || len(b.Labels()) != 1 || !hidden[b.Labels()[0]] {
			continue
		}
		if b.Body().GetAttribute("default") != nil {
			b.Body().SetAttributeValue("default", cty.StringVal(scenarios.SensitiveValue))
		}
	}
	out := copyVars(vars)
	for name := range hidden {
		if _, ok := out[name]; ok {
			out[name] = scenarios.SensitiveValue
		}
	}
	return f.Bytes(), out
}

func copyVars(vars map[string]string) map[string]string {
	out := make(map[string]string, len(vars))
	for k, v := range vars {
		out[k] = v
	}
	return out
}
