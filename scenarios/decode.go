package scenarios

import (
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// Load reads, decodes and validates the scenario file at path. vars holds
// --var NAME=VALUE overrides (raw strings). The error is *Error when the
// scenario itself is invalid (syntax or semantics); other errors (file not
// readable) are wrapped os errors.
func Load(path string, vars map[string]string) (*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	s, err := Parse(path, src, vars)
	if err != nil {
		return nil, err
	}
	s.File = path
	return s, nil
}

// Parse is Load for an in-memory source; filename is used in diagnostics.
// The returned Scenario has File "" (Load sets it). Problems that do not
// make the scenario invalid are in Scenario.Warnings.
func Parse(filename string, src []byte, vars map[string]string) (*Scenario, error) {
	p := hclparse.NewParser()
	f, diags := p.ParseHCL(src, filename)
	files := p.Files()
	if diags.HasErrors() || f == nil {
		// A syntax error leaves a partial body; decoding it would add
		// misleading "missing" errors, so report the syntax alone.
		return nil, newError(diags, files)
	}

	d := &decoder{src: newSources(f.Body.MissingItemRange())}
	d.diags = diags
	top := d.open("scenario file", "", f.Body, f.Body.MissingItemRange(), fileSchema)

	s := &Scenario{}
	s.Variables = d.variables(top.blocks("variable", 0), vars, files)
	d.decodeScenario(top, s)
	// Semantic checks run even after decoding errors, so that every problem
	// is reported in one pass; values that failed to decode are skipped.
	validate(s, d)
	if d.diags.HasErrors() {
		return nil, newError(d.diags, files)
	}
	if len(d.diags) > 0 {
		s.Warnings = newError(d.diags, files)
	}
	return s, nil
}

// newError sorts and deduplicates diags into an *Error.
func newError(diags hcl.Diagnostics, files map[string]*hcl.File) *Error {
	diags = dedupDiagnostics(append(hcl.Diagnostics(nil), diags...))
	sortDiagnostics(diags)
	return &Error{Diagnostics: diags, Files: files}
}

// decodeScenario decodes every top-level block but the variables into s.
func (d *decoder) decodeScenario(top *body, s *Scenario) {
	if blk := top.one("scenario", true, `name the test, e.g. scenario "checkout-spike" { description = "..." }.`); blk != nil {
		b := d.open("scenario", "scenario", blk.Body, blk.DefRange, scenarioSchema)
		s.Name = blk.Labels[0]
		if s.Name == "" {
			d.errorf(blk.LabelRanges[0].Ptr(), "Invalid scenario name", "The scenario needs a non-empty name; it appears in every report.")
		}
		s.Description = b.str("description", "")
		s.MaxDuration = b.duration("max_duration", 0)
	}
	if blk := top.one("target", true, `the service under test, e.g. target { url = "http://127.0.0.1:8080/work"  allow_hosts = ["127.0.0.1"] }.`); blk != nil {
		s.Target = d.decodeTarget(blk)
	}
	if blk := top.one("client", true, `how the clients behave, at least client { timeout = "1s" }.`); blk != nil {
		s.Client = d.decodeClient(blk)
	}
	for i, blk := range top.blocks("layer", 0) {
		s.Layers = append(s.Layers, d.decodeLayer(i, blk))
	}
	if blk := top.one("service", true, `what you believe of the service, e.g. service { capacity = 200 } in requests per second.`); blk != nil {
		s.Service = d.decodeService(blk)
	}
	if blk := top.one("load", true, `the demand to offer, e.g. load { baseline = 50  spike { multiplier = 5  duration = "10s" } }.`); blk != nil {
		s.Load = d.decodeLoad(blk)
	}
	if blk := top.one("prometheus", false, ""); blk != nil {
		s.Prometheus = d.decodePrometheus(blk)
	}
	s.Recovery = Recovery{SuccessRatio: DefaultSuccessRatio, Hold: DefaultHold}
	if blk := top.one("recovery", false, ""); blk != nil {
		s.Recovery = d.decodeRecovery(blk)
	}
	if blk := top.one("on_trap", false, ""); blk != nil {
		s.OnTrap = d.decodeOnTrap(blk)
	}
	if blk := top.one("gate", false, ""); blk != nil {
		s.Gate = d.decodeGate(blk)
	}
}
