package vocab

import (
	"fmt"
	"strings"
)

// name returns names[i], or kind(i) for a value with no name.
func name(kind string, names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", kind, i)
}

// parse returns the index of s in names, ignoring case and surrounding
// space. An empty s is index 0 when emptyOK, an error otherwise; the error
// names what is parsed and lists every valid name.
func parse(what string, names []string, s string, emptyOK bool) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" && emptyOK {
		return 0, nil
	}
	for i, n := range names {
		if n == t {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, list(names))
}

// list renders names as "a, b or c".
func list(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// clone returns a copy of names that the caller may change.
func clone(names []string) []string { return append([]string(nil), names...) }
