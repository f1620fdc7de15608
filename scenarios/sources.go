package scenarios

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// sources remembers where every decoded value came from, so that semantic
// checks, which run on the resolved Scenario, can point at the source.
//
// Values are named by path: "client.retry.budget" for an attribute,
// "client.retry" for a block, "layer[1].budget" for the second layer block,
// "client.retry.on[2]" for the third element of a list and
// "target.headers[X-Test]" for one key of a map.
type sources struct {
	file   hcl.Range                 // the whole file body's start: subject for missing top-level blocks
	attrs  map[string]*hcl.Attribute // attributes present in the source
	elems  map[string]hcl.Range      // list elements and map keys
	blocks map[string]hcl.Range      // DefRange of every decoded block
	failed map[string]bool           // values already reported (bad type, missing): no semantic check
	// unknown marks the enumerated values whose name is none of the
	// enumeration's (reported while decoding, and failed too).
	unknown map[string]bool
	// sensitive marks the attributes whose value was computed from a
	// sensitive variable; sensitiveKeys names, for a map or an object,
	// the keys whose values were.
	sensitive     map[string]bool
	sensitiveKeys map[string][]string
}

func newSources(file hcl.Range) *sources {
	return &sources{
		file:   file,
		attrs:  map[string]*hcl.Attribute{},
		elems:  map[string]hcl.Range{},
		blocks: map[string]hcl.Range{},
		failed: map[string]bool{},

		unknown:       map[string]bool{},
		sensitive:     map[string]bool{},
		sensitiveKeys: map[string][]string{},
	}
}

// has reports whether the attribute at path was given (and not null).
func (s *sources) has(path string) bool { return s.attrs[path] != nil }

// ok reports whether the value at path decoded without error, so a
// semantic check on it is meaningful and not a repeat.
func (s *sources) ok(path string) bool {
	for p := path; p != ""; p = parentPath(p) {
		if s.failed[p] {
			return false
		}
	}
	return true
}

// at returns the best source range for path: the element or attribute
// value's range when it was given, otherwise the DefRange of the nearest
// enclosing block, otherwise the file's start.
func (s *sources) at(path string) *hcl.Range {
	for p := path; p != ""; p = parentPath(p) {
		if r, ok := s.elems[p]; ok {
			return r.Ptr()
		}
		if a := s.attrs[p]; a != nil {
			return a.Expr.Range().Ptr()
		}
		if r, ok := s.blocks[p]; ok {
			return r.Ptr()
		}
	}
	return s.file.Ptr()
}

// expr returns the expression of the attribute at path, or nil.
func (s *sources) expr(path string) hcl.Expression {
	for p := path; p != ""; p = parentPath(p) {
		if a := s.attrs[p]; a != nil {
			return a.Expr
		}
	}
	return nil
}

// parentPath strips the last step of a path: "a.b[3]" → "a.b",
// "a.b" → "a", "a" → "".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}
