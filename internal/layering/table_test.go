package layering

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// designTable reads docs/design.md's "Who may import whom" table: each
// package of the module and the packages of the module it imports, without
// the module prefix ("—" for none).
func designTable(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### Who may import whom\n")
	if !ok {
		t.Fatal(`docs/design.md has no section "Who may import whom"`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	table := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if _, dup := table[pkg]; dup {
			t.Errorf("docs/design.md's table has two rows for %s", pkg)
		}
		imports := []string{}
		for _, name := range strings.Split(cells[2], ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			if name != "" && name != "—" {
				imports = append(imports, name)
			}
		}
		slices.Sort(imports)
		table[pkg] = imports
	}
	if len(table) == 0 {
		t.Fatal(`docs/design.md's "Who may import whom" has no table rows`)
	}
	return table
}

// TestImportsMatchTheTable: every package of the module imports (tests
// aside) exactly the packages of the module that its row in
// docs/design.md's "Who may import whom" names, and every package has a
// row, so the documented layering cannot drift from the code.
func TestImportsMatchTheTable(t *testing.T) {
	table := designTable(t)
	seen := map[string]bool{}
	for _, line := range golistLines(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		seen[pkg] = true
		got := ours(fields[1:])
		slices.Sort(got)
		want, ok := table[pkg]
		if !ok {
			t.Errorf("%s has no row in docs/design.md's \"Who may import whom\"; it imports %v", pkg, got)
			continue
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("%s imports %s, which its row in docs/design.md does not name", pkg, g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("docs/design.md says %s imports %s; it does not", pkg, w)
			}
		}
	}
	for pkg := range table {
		if !seen[pkg] {
			t.Errorf("docs/design.md's table has a row for %s, which is no package of the module", pkg)
		}
	}
}
