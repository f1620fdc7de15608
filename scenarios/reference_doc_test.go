package scenarios

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// referenceDoc is the scenario reference, from this package's folder.
const referenceDoc = "../docs/scenarios.md"

// acceptedName is one block or attribute the decoder accepts: its path
// from the file's top, block types and attribute names joined by dots
// ("client.retry.backoff", "client.retry.on"), and for a block the names
// of its labels.
type acceptedName struct {
	block  bool
	labels []string
}

// acceptedNames walks the decoder's schema tree (fileSchema and
// nestedSchemas, which the decoder opens every block from) and returns
// every block and attribute path it accepts. A block declared in a schema
// without a schema of its own in the tree is an error.
func acceptedNames(t *testing.T) map[string]acceptedName {
	t.Helper()
	out := map[string]acceptedName{}
	var walk func(prefix string, s *hcl.BodySchema)
	walk = func(prefix string, s *hcl.BodySchema) {
		for _, a := range s.Attributes {
			out[prefix+a.Name] = acceptedName{}
		}
		for _, h := range s.Blocks {
			path := prefix + h.Type
			out[path] = acceptedName{block: true, labels: h.LabelNames}
			child := nestedSchemas[s][h.Type]
			if child == nil {
				t.Errorf("block %s is declared, but nestedSchemas has no schema for it", path)
				continue
			}
			walk(path+".", child)
		}
	}
	walk("", fileSchema)
	return out
}

// documentedName is one block or attribute docs/scenarios.md documents,
// with the line that does.
type documentedName struct {
	block  bool
	labels int // quoted labels after a block's path in its heading
	line   int
	def    string // an attribute's default cell, as written
}

// The reference's conventions, which parseReference reads:
//
//   - A heading (outside code fences) that starts with code spans names
//     the blocks it documents, each by its path and its labels:
//     "## `client.retry.backoff` (optional)", "## `variable "NAME"`",
//     "### `target.tls`, `prometheus.tls` and `stop_when.tls`". The
//     section runs to the next heading.
//   - An attribute table is one whose header starts "| attribute |
//     default |"; each row's first cell is one attribute name in a code
//     span, an attribute of every block its section's heading names.
//   - A Limits table, whose header starts "| attribute | at most |",
//     names full paths in code spans; each must be accepted.
var (
	headingRE = regexp.MustCompile("^#{1,6} (.*)$")
	spanRE    = regexp.MustCompile("^`([^`]+)`")
	blockRE   = regexp.MustCompile(`^([a-z_]+(?:\.[a-z_]+)*)((?: "[A-Z]+")*)$`)
	cellsRE   = regexp.MustCompile(`\s*\|\s*`)
	anySpanRE = regexp.MustCompile("`([^`]+)`")
)

// parseReference reads the documented names of the reference at path and
// the full paths its Limits table names; problems with its own format are
// returned as messages.
func parseReference(path string) (names map[string]documentedName, limits map[string]int, problems []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	names, limits = map[string]documentedName{}, map[string]int{}
	add := func(p string, n documentedName) {
		if prev, ok := names[p]; ok {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is documented again (first at line %d)", path, n.line, p, prev.line))
			return
		}
		names[p] = n
	}
	var (
		section []string // block paths of the current section
		fence   bool
		table   string // "attribute", "limits" or "" (no table, or another one)
		inTable bool
	)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if m := headingRE.FindStringSubmatch(text); m != nil {
			section, table, inTable = nil, "", false
			rest := m[1]
			for {
				sm := spanRE.FindStringSubmatch(rest)
				if sm == nil {
					break
				}
				bm := blockRE.FindStringSubmatch(sm[1])
				if bm == nil {
					problems = append(problems, fmt.Sprintf("%s:%d: heading names %q, which is not a block path", path, line, sm[1]))
					break
				}
				section = append(section, bm[1])
				add(bm[1], documentedName{block: true, labels: strings.Count(bm[2], `"`) / 2, line: line})
				rest = strings.TrimPrefix(rest, sm[0])
				trimmed := strings.TrimLeft(rest, ", ")
				trimmed = strings.TrimPrefix(trimmed, "and ")
				if !strings.HasPrefix(trimmed, "`") {
					break
				}
				rest = trimmed
			}
			continue
		}
		if !strings.HasPrefix(text, "|") {
			table, inTable = "", false
			continue
		}
		cells := cellsRE.Split(strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "|")), -1)
		if !inTable {
			inTable, table = true, ""
			switch {
			case len(cells) >= 2 && cells[0] == "attribute" && cells[1] == "default":
				table = "attribute"
				if len(section) == 0 {
					problems = append(problems, fmt.Sprintf("%s:%d: attribute table outside a block's section", path, line))
				}
			case len(cells) >= 2 && cells[0] == "attribute" && cells[1] == "at most":
				table = "limits"
			}
			continue
		}
		if strings.Trim(cells[0], "-: ") == "" {
			continue // the header's rule
		}
		switch table {
		case "attribute":
			sm := spanRE.FindStringSubmatch(cells[0])
			if sm == nil || sm[0] != cells[0] || strings.ContainsAny(sm[1], ". ") {
				problems = append(problems, fmt.Sprintf("%s:%d: an attribute table's first cell must be one attribute name in a code span, not %q", path, line, cells[0]))
				continue
			}
			for _, b := range section {
				add(b+"."+sm[1], documentedName{line: line, def: cells[1]})
			}
		case "limits":
			for _, sm := range anySpanRE.FindAllStringSubmatch(cells[0], -1) {
				limits[sm[1]] = line
			}
		}
	}
	return names, limits, problems, sc.Err()
}

// TestReferenceDocMatchesSchema holds docs/scenarios.md to the decoder:
// every block and attribute the decoder's schema tree accepts is
// documented (a block by a heading with its labels, an attribute by a row
// of its block's attribute table), every documented one is accepted, and
// every name in the Limits table is accepted.
func TestReferenceDocMatchesSchema(t *testing.T) {
	accepted := acceptedNames(t)
	documented, limits, problems, err := parseReference(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	var paths []string
	for p := range accepted {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		a := accepted[p]
		d, ok := documented[p]
		switch {
		case !ok && a.block:
			t.Errorf("block %s is accepted but %s has no section for it (a heading starting `%s`)", p, referenceDoc, p)
		case !ok:
			t.Errorf("attribute %s is accepted but undocumented in %s (a row `%s` in the %s section's attribute table)",
				p, referenceDoc, p[strings.LastIndex(p, ".")+1:], p[:max(0, strings.LastIndex(p, "."))])
		case a.block != d.block:
			t.Errorf("%s:%d: %s is documented as a block or attribute, but the decoder accepts the other", referenceDoc, d.line, p)
		case a.block && d.labels != len(a.labels):
			t.Errorf("%s:%d: block %s takes %d label(s) %q, its heading shows %d", referenceDoc, d.line, p, len(a.labels), a.labels, d.labels)
		}
	}
	paths = paths[:0]
	for p := range documented {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if _, ok := accepted[p]; !ok {
			t.Errorf("%s:%d: %s is documented but the decoder does not accept it", referenceDoc, documented[p].line, p)
		}
	}
	for p, line := range limits {
		if _, ok := accepted[p]; !ok {
			t.Errorf("%s:%d: the Limits table names %s, which the decoder does not accept", referenceDoc, line, p)
		}
	}
}

// TestReferenceDocLinksStayInTheRepository: every link of
// docs/scenarios.md is a file of the repository (an anchor after it
// aside): no web address, nothing outside the repository's folder.
func TestReferenceDocLinksStayInTheRepository(t *testing.T) {
	src, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(filepath.Join(root, "docs", "scenarios.md"))
	for _, m := range regexp.MustCompile(`\]\(([^)\s]*)\)`).FindAllStringSubmatch(string(src), -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" {
			continue // an anchor in the page
		}
		if strings.Contains(target, ":") {
			t.Errorf("link %q leaves the repository", m[1])
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(target))
		if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("link %q leaves the repository", m[1])
			continue
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("link %q: %v", m[1], err)
		}
	}
}

// TestReferenceDocOutcomeClasses: the reference's table of the classes
// client.retry.on names lists each class the decoder accepts, once, and
// no other.
func TestReferenceDocOutcomeClasses(t *testing.T) {
	src, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "| class |"):
			in = true
		case in && strings.HasPrefix(line, "|"):
			cells := cellsRE.Split(strings.TrimSpace(strings.Trim(line, "|")), -1)
			if m := regexp.MustCompile("^`\"([^\"`]+)\"`$").FindStringSubmatch(cells[0]); m != nil {
				listed = append(listed, m[1])
			}
		default:
			in = false
		}
	}
	sort.Strings(listed)
	want := append([]string(nil), outcomeClasses...)
	sort.Strings(want)
	if strings.Join(listed, ",") != strings.Join(want, ",") {
		t.Errorf("%s lists the outcome classes %q; client.retry.on takes %q", referenceDoc, listed, want)
	}
}

// TestReferenceDocExamplesUseAcceptedNames: every hcl example of the
// reference parses, and names only blocks and attributes the decoder's
// schema tree accepts where they are written (an example is a part of a
// scenario file: its top-level blocks are the file's).
func TestReferenceDocExamplesUseAcceptedNames(t *testing.T) {
	src, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	var check func(b hcl.Body, s *hcl.BodySchema) hcl.Diagnostics
	check = func(b hcl.Body, s *hcl.BodySchema) hcl.Diagnostics {
		content, diags := b.Content(s)
		for _, blk := range content.Blocks {
			diags = append(diags, check(blk.Body, nestedSchemas[s][blk.Type])...)
		}
		return diags
	}
	examples := 0
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```hcl" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		examples++
		text := strings.Join(lines[start:i], "\n") + "\n"
		f, diags := hclsyntax.ParseConfig([]byte(text), referenceDoc, hcl.Pos{Line: start + 1, Column: 1})
		if !diags.HasErrors() {
			diags = check(f.Body, fileSchema)
		}
		for _, d := range diags {
			t.Errorf("the example from line %d: %s", start+1, d.Error())
		}
	}
	if examples == 0 {
		t.Fatalf("no hcl example in %s", referenceDoc)
	}
}
