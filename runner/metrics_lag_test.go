package runner

import "testing"

func TestLongestRange(t *testing.T) {
	cases := []struct {
		name    string
		queries []serviceQuery
		want    float64 // seconds
	}{
		// The longest window of the named queries.
		{"rates", []serviceQuery{{name: "ingress", text: `sum(rate(x[20s]))`}, {name: "served", text: `sum(rate(y[1m]))`}}, 60},
		// Queries not named do not count.
		{"other query", []serviceQuery{{name: "ingress", text: `sum(rate(x[5s]))`}, {name: "wait", text: `max(rate(w[5m]))`}}, 5},
		// An offset adds to the window.
		{"offset", []serviceQuery{{name: "served", text: `sum(rate(y[10s] offset 30s))`}}, 40},
		// A subquery's range adds to the window inside it.
		{"subquery", []serviceQuery{{name: "first_attempts", text: `max_over_time(sum(rate(x[10s]))[1m:5s])`}}, 70},
		// A recording rule or gauge looks back nothing the text shows.
		{"recording rule", []serviceQuery{{name: "ingress", text: `job:x:rate1m`}}, 0},
		// A query the parser refuses counts as 0.
		{"syntax error", []serviceQuery{{name: "ingress", text: `sum(rate(x[5s])`}}, 0},
	}
	for _, c := range cases {
		if got := longestRange(c.queries, "ingress", "first_attempts", "served"); got != c.want {
			t.Errorf("%s: longestRange = %g s, want %g s", c.name, got, c.want)
		}
	}
}
