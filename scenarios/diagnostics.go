package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
)

// Error is an invalid scenario: every problem found, each with its source
// range. It is also used, with only warnings in it, for Scenario.Warnings.
type Error struct {
	// Diagnostics are the problems in source order (problems with --var
	// overrides first); at least one is an error when Load or Parse
	// returns the *Error.
	Diagnostics hcl.Diagnostics
	// Files maps each diagnostic's Subject.Filename to its parsed file, for
	// rendering snippets (the scenario itself and one pseudo-file per
	// --var override that was parsed).
	Files map[string]*hcl.File
}

// Error returns one line: the file, the number of problems and the first
// one, e.g. "scenario.hcl: 3 problems; first: scenario.hcl:12:13: Invalid
// duration". Warnings are counted only when there is no error.
func (e *Error) Error() string {
	if e == nil || len(e.Diagnostics) == 0 {
		return "scenario: no problems"
	}
	var first *hcl.Diagnostic
	errs := 0
	for _, d := range e.Diagnostics {
		if d.Severity == hcl.DiagError {
			if first == nil {
				first = d
			}
			errs++
		}
	}
	noun, n := "problem", errs
	if errs == 0 {
		noun, n, first = "warning", len(e.Diagnostics), e.Diagnostics[0]
	}
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%s: %d %s; first: %s", e.file(), n, noun, diagLine(first))
}

// maxRendered is the most diagnostics Render writes in full; the index
// that ends the rendering lists them all.
const maxRendered = 100

// Render writes every diagnostic as hcl.NewDiagnosticTextWriter prints it:
// severity and summary, "on FILE line N, in BLOCK:", the source lines of the
// subject (highlighted when color is true) and the detail wrapped at width
// columns (0: no wrapping). Past maxRendered diagnostics it says how many
// more there are; the index lists them all.
func (e *Error) Render(w io.Writer, width uint, color bool) error {
	if e == nil {
		return nil
	}
	for i, d := range e.Diagnostics {
		if i == maxRendered {
			if _, err := fmt.Fprintf(w, "… and %d more, listed below.\n\n", len(e.Diagnostics)-maxRendered); err != nil {
				return fmt.Errorf("render diagnostics: %w", err)
			}
			break
		}
		d, files := window(d, e.Files)
		if err := hcl.NewDiagnosticTextWriter(w, files, width, color).WriteDiagnostic(d); err != nil {
			return fmt.Errorf("render diagnostics: %w", err)
		}
	}
	return e.renderIndex(w)
}

// window returns d and a file map that render d as it would be rendered
// from files, but at a cost that does not grow with the file: hcl's writer
// reads the file from its start for every diagnostic, measuring every
// line in grapheme clusters (hundreds of nanoseconds a byte). The file is
// replaced by its lines from the first line of d's subject and context to
// the last, preceded by as many empty lines as came before them, and d's
// byte offsets are moved to match (its lines and columns are unchanged).
func window(d *hcl.Diagnostic, files map[string]*hcl.File) (*hcl.Diagnostic, map[string]*hcl.File) {
	if d.Subject == nil {
		return d, files
	}
	f := files[d.Subject.Filename]
	if f == nil || f.Bytes == nil {
		return d, files
	}
	src := f.Bytes
	snip := *d.Subject
	if d.Context != nil && d.Context.Filename == snip.Filename {
		snip = hcl.RangeOver(snip, *d.Context)
	}
	start := max(0, min(snip.Start.Byte, len(src)))
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := max(start, min(snip.End.Byte+1, len(src)))
	for end < len(src) && src[end-1] != '\n' {
		end++
	}
	lines := bytes.Count(src[:start], []byte{'\n'})
	buf := make([]byte, 0, lines+end-start)
	buf = append(buf, bytes.Repeat([]byte{'\n'}, lines)...)
	buf = append(buf, src[start:end]...)
	delta := start - lines

	moved := *d
	shift := func(r *hcl.Range) *hcl.Range {
		if r == nil || r.Filename != snip.Filename {
			return r
		}
		c := *r
		c.Start.Byte -= delta
		c.End.Byte -= delta
		return &c
	}
	moved.Subject, moved.Context = shift(d.Subject), shift(d.Context)
	var nav any
	if cs, ok := f.Nav.(contextStringer); ok {
		nav = shiftedNav{cs, delta}
	}
	return &moved, map[string]*hcl.File{snip.Filename: {Bytes: buf, Body: f.Body, Nav: nav}}
}

// contextStringer is what hcl's writer asks of a file's Nav for the
// "in BLOCK" of a diagnostic.
type contextStringer interface {
	ContextString(offset int) string
}

// shiftedNav answers for a windowed file with the original file's Nav.
type shiftedNav struct {
	nav   contextStringer
	delta int
}

func (n shiftedNav) ContextString(offset int) string { return n.nav.ContextString(offset + n.delta) }

// renderIndex ends the rendering with one "file:line:col: severity: summary"
// line per diagnostic, the form editors and CI annotations pick up (hcl's
// writer names the line but not the column).
func (e *Error) renderIndex(w io.Writer) error {
	var b strings.Builder
	for _, d := range e.Diagnostics {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		line := diagLine(d)
		if d.Subject != nil {
			line = fmt.Sprintf("%s:%d:%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, sev, d.Summary)
		}
		b.WriteString(line + "\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("render diagnostics: %w", err)
	}
	return nil
}

// file names the scenario file the diagnostics are about: the first
// filename among subjects that is not a --var pseudo-file.
func (e *Error) file() string {
	for _, d := range e.Diagnostics {
		if d.Subject != nil && !isVarFile(d.Subject.Filename) {
			return d.Subject.Filename
		}
	}
	for name := range e.Files {
		if !isVarFile(name) {
			return name
		}
	}
	return "scenario"
}

// diagLine renders one diagnostic on one line: "file:line:col: Summary".
func diagLine(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return d.Summary
	}
	return fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
}

// sortDiagnostics orders diagnostics for reading: those without a source
// range, then --var pseudo-files, then the scenario file by position. The
// sort is stable, so diagnostics on the same range keep their order.
func sortDiagnostics(diags hcl.Diagnostics) {
	rank := func(d *hcl.Diagnostic) int {
		switch {
		case d.Subject == nil:
			return 0
		case isVarFile(d.Subject.Filename):
			return 1
		default:
			return 2
		}
	}
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Subject == nil || b.Subject == nil {
			return false
		}
		if a.Subject.Filename != b.Subject.Filename {
			return a.Subject.Filename < b.Subject.Filename
		}
		return a.Subject.Start.Byte < b.Subject.Start.Byte
	})
}

// dedupDiagnostics drops exact repeats (same severity, summary, detail and
// subject), which hcl can produce when one expression is evaluated twice.
func dedupDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		sev             hcl.DiagnosticSeverity
		summary, detail string
		subject         hcl.Range
	}
	seen := make(map[key]bool, len(diags))
	out := diags[:0]
	for _, d := range diags {
		k := key{sev: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.subject = *d.Subject
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// closest returns the option nearest to given by edit distance (ignoring
// case), or "" when none is within maxDistance edits. It is the "did you
// mean" of every enumerated value and name.
func closest(given string, options []string) string {
	const maxDistance = 3
	best, bestDist := "", maxDistance+1
	g := strings.ToLower(given)
	for _, o := range options {
		d := levenshtein.Distance(g, strings.ToLower(o), nil)
		if d < bestDist {
			best, bestDist = o, d
		}
	}
	// A short given word is within 3 edits of nearly anything; demand that
	// at most half of it changes.
	if best != "" && bestDist > 0 && 2*bestDist > len(g) {
		return ""
	}
	return best
}

// didYouMean is " Did you mean "x"?" when a close option exists, else "".
func didYouMean(given string, options []string) string {
	if s := closest(given, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// quoteList renders options as "a", "b" or "c".
func quoteList(options []string) string {
	q := make([]string, len(options))
	for i, o := range options {
		q[i] = fmt.Sprintf("%q", o)
	}
	switch len(q) {
	case 0:
		return "(none)"
	case 1:
		return q[0]
	default:
		return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
}
