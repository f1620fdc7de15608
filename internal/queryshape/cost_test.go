package queryshape

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// CheckCost refuses, from the text alone, the queries whose evaluation
// would cost more than the bounds (the audit's count_over_time(up[100d:1ms])
// among them), and passes the queries a scenario or a dashboard asks.
func TestCheckCost(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	instant := Evaluation{Start: t0, End: t0, SubqueryStep: time.Second}
	hour := Evaluation{Start: t0, End: t0.Add(time.Hour), Step: 15 * time.Second, SubqueryStep: time.Second}
	deep := strings.Repeat("(", MaxDepth) + "up" + strings.Repeat(")", MaxDepth)
	long := "up" + strings.Repeat(" ", MaxCostQueryBytes)
	cases := []struct {
		name string
		expr string
		ev   Evaluation
		want error // nil, ErrTooCostly or ErrInvalid
		msg  string
	}{
		{"rate", `sum(rate(specimen_ingress_total[3s]))`, instant, nil, ""},
		{"subquery of an hour every second", `max_over_time(rate(x[10s])[1h:1s])`, instant, nil, ""},
		{"subquery without step uses the scrape interval", `max_over_time(x[1h:])`, instant, nil, ""},
		{"dashboard range query", `max_over_time(rate(x[1m])[5m:1s])`, hour, nil, ""},
		{"range query steps alone", `up`, Evaluation{Start: t0, End: t0.Add(11000 * time.Second), Step: time.Second, SubqueryStep: time.Second}, nil, ""},
		{"long matrix selector: samples, not steps", `rate(x[100d])`, instant, nil, ""},
		{"the audit's query", `count_over_time(up[100d:1ms])`, instant, ErrTooCostly, "8.64e+09"},
		{"subquery without step over 100 days", `count_over_time(up[100d:])`, instant, ErrTooCostly, "steps"},
		{"nested subqueries multiply", `max_over_time(max_over_time(up[1h:1s])[1h:1s])`, instant, ErrTooCostly, "steps"},
		{"subquery over a range query", `max_over_time(up[1m:1ms])`, hour, ErrTooCostly, "steps"},
		{"many subqueries add up", strings.Repeat(`count_over_time(up[1d:1s]) + `, 12) + `1`, instant, ErrTooCostly, "steps"},
		{"pinned subquery still counted", `count_over_time(up[100d:1ms] @ 0)`, instant, ErrTooCostly, "steps"},
		{"duration expression evaluated", `count_over_time(up[(50d+50d):(1ms)])`, instant, ErrTooCostly, "steps"},
		{"subquery step under a millisecond", `count_over_time(up[1s:0.0001])`, instant, ErrTooCostly, "shorter than 1ms"},
		{"query step under a millisecond", `up`, Evaluation{Start: t0, End: t0.Add(time.Millisecond), Step: time.Microsecond, SubqueryStep: time.Second}, ErrTooCostly, "shorter than 1ms"},
		{"too deep", deep, instant, ErrTooCostly, "nested"},
		{"deep enough", strings.Repeat("(", MaxDepth-2) + "up" + strings.Repeat(")", MaxDepth-2), instant, nil, ""},
		{"long binary chain is deep", strings.Repeat("up + ", 200) + "up", instant, ErrTooCostly, "nested"},
		{"too long", long, instant, ErrTooCostly, "bytes"},
		{"syntax error", `rate(x[5m]`, instant, ErrInvalid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckCost(c.expr, c.ev)
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("CheckCost: %v, want nil", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("CheckCost: %v, want %v", err, c.want)
			case c.want != nil && !strings.Contains(err.Error(), c.msg):
				t.Errorf("CheckCost: %v, want it to say %q", err, c.msg)
			}
		})
	}
}
