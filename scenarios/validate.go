package scenarios

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// validator runs the semantic checks on a decoded scenario. Every check
// names the path of the value it is about; the diagnostic's subject is that
// value's source range (or the enclosing block's DefRange when the value was
// left out), and a value that already failed to decode is not checked again.
type validator struct {
	d *decoder
	s *Scenario
}

// validate checks s and completes what depends on several values (the
// service's capacity from pods × pod_rate). Problems go to d.diags. Each
// block's checks are in its block_NAME.go file.
func validate(s *Scenario, d *decoder) {
	v := &validator{d: d, s: s}
	v.scenario()
	v.target()
	v.client()
	v.layers()
	v.service()
	v.fault()
	v.load()
	v.prometheus()
	v.recovery()
	v.onTrap()
	v.gate()
	v.notify()
	v.campaign()
	v.stopWhen()
	v.duration()
	v.secretHostNames()
}

// present reports whether the block at path was decoded.
func (v *validator) present(path string) bool {
	_, ok := v.d.src.blocks[path]
	return ok && v.d.src.ok(path)
}

// report adds a diagnostic about the value at path, unless that value has
// already been reported.
func (v *validator) report(sev hcl.DiagnosticSeverity, path, summary, format string, args ...any) {
	if !v.d.src.ok(path) {
		return
	}
	v.d.reportAt(sev, path, summary, format, args...)
}

// errorf reports an error about the value at path when bad is true.
func (v *validator) errorf(bad bool, path, summary, format string, args ...any) {
	if bad {
		v.report(hcl.DiagError, path, summary, format, args...)
	}
}

// warnf reports a warning about the value at path when bad is true.
func (v *validator) warnf(bad bool, path, summary, format string, args ...any) {
	if bad {
		v.report(hcl.DiagWarning, path, summary, format, args...)
	}
}

// fraction checks lo < x ≤ 1 (open) or lo ≤ x ≤ 1 (closed).
func (v *validator) fraction(x float64, open bool, path, name, meaning string) {
	if open {
		v.errorf(x <= 0 || x > 1, path, "Value out of range", "%s must be in (0, 1]: it is %s. Got %g.", name, meaning, x)
		return
	}
	v.errorf(x < 0 || x > 1, path, "Value out of range", "%s must be in [0, 1]: it is %s. Got %g.", name, meaning, x)
}

// positiveDur checks d > 0.
func (v *validator) positiveDur(d time.Duration, path, name, meaning string) {
	v.errorf(d <= 0, path, "Value out of range", "%s must be longer than zero: it is %s. Got %s.", name, meaning, d)
}

// nonNegDur checks d ≥ 0.
func (v *validator) nonNegDur(d time.Duration, path, name, meaning string) {
	v.errorf(d < 0, path, "Value out of range", "%s must not be negative: it is %s. Got %s.", name, meaning, d)
}

// quoted returns each of list quoted as Go does.
func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// unique reports a block (kind[i]) whose name an earlier block of the same
// kind already took, pointing at the first; what says what each block is.
func (v *validator) unique(seen map[string]int, kind, name string, i int, what string) {
	if j, dup := seen[name]; dup {
		v.errorf(true, fmt.Sprintf("%s[%d].name", kind, i), "Duplicate "+kind, "A %s named %q is already declared at %s; give each %s its own name.",
			kind, name, rangeLine(v.d.src.blocks[fmt.Sprintf("%s[%d]", kind, j)]), what)
		return
	}
	seen[name] = i
}
