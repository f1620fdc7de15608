package queryshape

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name      string
		expr      string
		rng, off  time.Duration
		pinned    bool
		selectors []string
	}{
		// The window of a rate.
		{"rate", `rate(x[20s])`, 20 * time.Second, 0, false, []string{"x"}},
		// The longest window of a ratio; both selectors, in text order.
		{"ratio", `sum(rate(a[1m])) / sum(rate(b[5s]))`, time.Minute, 0, false, []string{"a", "b"}},
		// A subquery's range adds to the look-back inside it; its step does not count.
		{"subquery", `max_over_time(rate(x[10s])[1m:5s])`, 70 * time.Second, 0, false, []string{"x"}},
		// A subquery with the default step.
		{"subquery without step", `max_over_time(x[2m:])`, 2 * time.Minute, 0, false, []string{"x"}},
		// An offset on an instant selector.
		{"offset", `x offset 30s`, 0, 30 * time.Second, false, []string{"x"}},
		// An offset on a range selector, and labels printed back.
		{"offset on range", `rate(x_total{kind="first"}[1m] offset 1m)`, time.Minute, time.Minute, false, []string{`x_total{kind="first"}`}},
		// Nested offsets add up.
		{"nested offsets", `max_over_time(rate(x[10s] offset 5s)[1m:10s] offset 1m)`, 70 * time.Second, 65 * time.Second, false, []string{"x"}},
		// A negative offset looks forward: it counts as zero.
		{"negative offset", `rate(x[1m] offset -30s)`, time.Minute, 0, false, []string{"x"}},
		// Duration expressions are evaluated.
		{"duration expression", `rate(x[2*15s] offset (1m+30s))`, 30 * time.Second, 90 * time.Second, false, []string{"x"}},
		// A gauge has no range.
		{"gauge", `max(w)`, 0, 0, false, []string{"w"}},
		// A recording rule's name has no range either.
		{"recording rule", `job:requests:rate5m{job="api"}`, 0, 0, false, []string{`job:requests:rate5m{job="api"}`}},
		// @ pins the expression; the selector is printed without it.
		{"at timestamp", `rate(x[1m] @ 1700000000)`, time.Minute, 0, true, []string{"x"}},
		{"at end", `sum(y @ end()) + sum(rate(x[5s]))`, 5 * time.Second, 0, true, []string{"y", "x"}},
		// A selector used twice is listed once; matchers are printed sorted.
		{"dedup", `sum(rate(a{b="1",a="2"}[5s])) / sum(rate(a{a="2", b="1"}[1m])) + c`, time.Minute, 0, false, []string{`a{a="2",b="1"}`, "c"}},
		// Order of appearance, even where the tree lists a child first.
		{"order", `topk(scalar(k), v)`, 0, 0, false, []string{"k", "v"}},
		// Quoted UTF-8 names are printed back as valid PromQL, quoted.
		{"utf8 name", `{"my.metric", "a.b"="c"}`, 0, 0, false, []string{`{"a.b"="c",__name__="my.metric"}`}},
		// No selector at all.
		{"constant", `vector(1)`, 0, 0, false, nil},
		// Experimental functions parse.
		{"experimental", `sum(mad_over_time(x[30s]))`, 30 * time.Second, 0, false, []string{"x"}},
	}
	for _, c := range cases {
		s, err := Parse(c.expr)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", c.name, c.expr, err)
			continue
		}
		if s.Range != c.rng || s.Offset != c.off || s.Pinned != c.pinned || !slices.Equal(s.Selectors, c.selectors) {
			t.Errorf("%s: Parse(%q) = %+v, want Range %v Offset %v Pinned %v Selectors %q",
				c.name, c.expr, s, c.rng, c.off, c.pinned, c.selectors)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, expr string }{
		// An unclosed parenthesis.
		{"syntax", `sum(rate(x[5s])`},
		// A range on something that is not a selector.
		{"range on a call", `rate(x[5s])[1m]`},
		// step() is 0 in an instant query: no window.
		{"step in instant query", `rate(x[step()])`},
		{"empty", ``},
	}
	for _, c := range cases {
		_, err := Parse(c.expr)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Parse(%q) err = %v, want ErrInvalid", c.name, c.expr, err)
		}
	}
}
