package importer

import (
	"fmt"
	"net/url"
	"strings"
)

// nameRequests gives each distinct request a name a scenario accepts: its
// method and the last segment of its path ("post-quote"), made unique with
// -2, -3, ….
func nameRequests(ds []*distinct) {
	used := map[string]int{}
	for _, d := range ds {
		base := strings.ToLower(d.Method) + "-" + lastSegment(d.URL)
		base = sanitize(base)
		used[base]++
		d.name = base
		if n := used[base]; n > 1 {
			d.name = fmt.Sprintf("%s-%d", base, n)
		}
	}
}

// lastSegment is the last non-empty segment of the URL's path, "root"
// when there is none.
func lastSegment(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "request"
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if s := segs[len(segs)-1]; s != "" {
		return s
	}
	return "root"
}

// sanitize keeps letters, digits, dots, dashes and underscores, at most
// 56 of them (room for a -N suffix), starting with a letter or digit.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	out := strings.TrimLeft(b.String(), "-._")
	if len(out) > 56 {
		out = out[:56]
	}
	if out == "" {
		return "request"
	}
	return out
}

// ScenarioName is a scenario name from a recording's path: its file name
// without extension, as a name a scenario accepts.
func ScenarioName(path string) string {
	base := path
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.Index(base, "."); i > 0 {
		base = base[:i]
	}
	return sanitize(base)
}
