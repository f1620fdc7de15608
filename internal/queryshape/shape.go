// Package queryshape reads, from a PromQL expression's text, how far back
// its value looks: its longest range window and offset, whether an @
// modifier pins it, and its vector selectors. A run adds the scrape
// interval of the series to get each signal's delay (docs/model.md, "What
// a trigger test measures", signals and their delays).
package queryshape

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
)

// ErrInvalid marks an expression that does not parse, or whose duration
// expressions cannot be evaluated for an instant query.
var ErrInvalid = errors.New("bad query")

// Shape is what a PromQL expression's text says about how far back
// its value looks. Range + Offset bounds the look-back from above: a value
// read at t depends on no sample older than t − Range − Offset (plus the
// scrape interval of the series, which the text does not say).
type Shape struct {
	// Range is the longest look-back of range selectors and subqueries
	// along any path of the expression tree, in time.Duration units
	// (nanoseconds): 20s for rate(x[20s]). Nested look-backs add up: a
	// subquery's range adds to the look-back of the expression inside
	// it, so max_over_time(rate(x[10s])[1m:5s]) has Range 1m10s. A
	// subquery's step does not count: its points lie in (t − range, t],
	// so the step delays when a change first shows, not when the value
	// holds only the new state.
	Range time.Duration
	// Offset is the largest sum of `offset` modifiers along any path of
	// the expression tree (nested subquery offsets add up), in
	// time.Duration units; a negative offset counts as zero.
	Offset time.Duration
	// Pinned is true when an `@` modifier (a timestamp, start() or end())
	// fixes part of the expression in time: that part does not follow the
	// evaluation time at all.
	Pinned bool
	// Selectors are the expression's vector selectors printed back as
	// PromQL, e.g. `specimen_ingress_total{kind="first"}`, without range,
	// offset or @ modifier; deduplicated, in order of appearance in the
	// text.
	Selectors []string
}

// Parse parses expr with the PromQL parser and reads its shape.
// A syntax error, or a duration expression that cannot be evaluated for
// an instant query (such as [step()]), wraps ErrInvalid. Duration
// expressions (offset (1m+30s), [2*15s]) are evaluated as for an instant
// query, where step() and range() are 0.
func Parse(expr string) (Shape, error) {
	e, err := Parser().ParseExpr(expr)
	if err != nil {
		return Shape{}, fmt.Errorf("query shape: %w: %w", ErrInvalid, err)
	}
	// The engine's own preprocessing evaluates duration expressions into
	// Range, Step and OriginalOffset, as it does for an instant query.
	t := time.Unix(0, 0)
	if e, err = promql.PreprocessExpr(e, t, t, 0); err != nil {
		return Shape{}, fmt.Errorf("query shape: %w: %w", ErrInvalid, err)
	}
	var s Shape
	var selectors []*parser.VectorSelector
	s.Range, s.Offset = lookBack(e, &s.Pinned, &selectors)
	slices.SortStableFunc(selectors, func(a, b *parser.VectorSelector) int {
		return int(a.PosRange.Start - b.PosRange.Start)
	})
	for _, vs := range selectors {
		if text := bareSelector(vs); !slices.Contains(s.Selectors, text) {
			s.Selectors = append(s.Selectors, text)
		}
	}
	return s, nil
}

// lookBack returns the longest range and offset sums along the paths from
// node down to its leaves, noting @ modifiers in pinned and collecting the
// vector selectors.
func lookBack(node parser.Node, pinned *bool, selectors *[]*parser.VectorSelector) (rng, off time.Duration) {
	switch n := node.(type) {
	case *parser.VectorSelector:
		*selectors = append(*selectors, n)
		if n.Timestamp != nil || n.StartOrEnd != 0 {
			*pinned = true
		}
		return 0, max(n.OriginalOffset, 0)
	case *parser.MatrixSelector:
		rng, off = lookBack(n.VectorSelector, pinned, selectors)
		return rng + n.Range, off
	case *parser.SubqueryExpr:
		if n.Timestamp != nil || n.StartOrEnd != 0 {
			*pinned = true
		}
		rng, off = lookBack(n.Expr, pinned, selectors)
		return rng + n.Range, off + max(n.OriginalOffset, 0)
	}
	for child := range parser.ChildrenIter(node) {
		r, o := lookBack(child, pinned, selectors)
		rng, off = max(rng, r), max(off, o)
	}
	return rng, off
}

// bareSelector prints vs as PromQL without its offset, @ and
// anchored/smoothed modifiers.
func bareSelector(vs *parser.VectorSelector) string {
	c := *vs
	c.OriginalOffset, c.OriginalOffsetExpr, c.Offset = 0, nil, 0
	c.Timestamp, c.StartOrEnd = nil, 0
	c.Anchored, c.Smoothed = false, false
	return c.String()
}
