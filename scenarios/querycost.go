package scenarios

import (
	"errors"
	"time"

	"github.com/trigger-test/trigger/internal/queryshape"
)

// queryCost reports at path a query whose evaluation would cost more than
// the run's embedded Prometheus allows (queryshape.CheckCost): a run
// evaluates it at one instant every second, a subquery without a step
// every scrape interval. A query that does not parse is reported
// elsewhere.
func (v *validator) queryCost(q, path string) {
	step := DefaultScrapeInterval
	if p := v.s.Prometheus; p != nil && p.ScrapeInterval >= MinScrapeInterval {
		step = p.ScrapeInterval
	}
	t := time.Unix(0, 0)
	err := queryshape.CheckCost(q, queryshape.Evaluation{Start: t, End: t, SubqueryStep: step})
	if !errors.Is(err, queryshape.ErrTooCostly) {
		return
	}
	msg := err.Error()
	if v.d.src.sensitive[path] {
		msg = "the query is computed from a sensitive variable, so the details are not shown"
	}
	v.errorf(true, path, "Query too costly",
		"%s. A run's Prometheus refuses, before evaluating it, a query with more than %d evaluation steps (a subquery [RANGE:STEP] takes RANGE/STEP), a step under %v, or nested more than %d deep.",
		msg, queryshape.MaxSteps, queryshape.MinStep, queryshape.MaxDepth)
}
