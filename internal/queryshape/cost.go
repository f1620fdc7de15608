package queryshape

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"

	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
)

// Bounds of a query's cost, checked by CheckCost before any evaluation.
// The PromQL engine allocates a subquery's steps before it counts any
// sample: `count_over_time(up[100d:1ms])` asks for 8.64e9 steps, about
// 69 GB, and only a check of the text can refuse it in time.
const (
	// MaxCostQueryBytes is the longest query text, in bytes.
	MaxCostQueryBytes = 8 << 10
	// MaxDepth is the deepest expression tree, in nodes from the root.
	MaxDepth = 100
	// MaxSteps is the most evaluation steps a query may take: the steps of
	// the query itself (1 for an instant query) plus, for each subquery,
	// the steps over which its inner expression is evaluated.
	MaxSteps = 1_000_000
	// MinStep is the shortest step of a range query or subquery.
	MinStep = time.Millisecond
)

// ErrTooCostly marks a query refused by CheckCost for its cost: too long,
// too deep, too many steps, or a step too short.
var ErrTooCostly = errors.New("query too costly")

// Evaluation is how a query is to be evaluated: at one instant (Step 0,
// Start = End) or over [Start, End] every Step.
type Evaluation struct {
	// Start and End bound the evaluation; equal for an instant query.
	Start, End time.Time
	// Step is the resolution of a range query; 0 for an instant query.
	Step time.Duration
	// SubqueryStep is the step of a subquery written without one
	// (`x[5m:]`): the engine's NoStepSubqueryIntervalFn, the scrape
	// interval for the embedded server. Required (> 0).
	SubqueryStep time.Duration
}

// CheckCost parses expr with Parser and refuses it, before any
// evaluation, when evaluating it as ev would cost more than the bounds
// above: the text longer than MaxCostQueryBytes, a tree deeper than
// MaxDepth, a step (of the query or a subquery) shorter than MinStep, or
// more than MaxSteps evaluation steps. A refusal wraps ErrTooCostly and
// says which bound and by how much; a query that does not parse wraps
// ErrInvalid. A subquery counts the larger of the steps the engine
// evaluates its inner expression at (once over the outer span plus its
// range, every subquery step) and the points read from it (its range/step
// at each outer evaluation; nested subqueries multiply).
func CheckCost(expr string, ev Evaluation) error {
	if len(expr) > MaxCostQueryBytes {
		return fmt.Errorf("%w: the query is %d bytes, more than %d", ErrTooCostly, len(expr), MaxCostQueryBytes)
	}
	if ev.SubqueryStep <= 0 {
		return errors.New("query cost: Evaluation.SubqueryStep is required")
	}
	if ev.Step != 0 && ev.Step < MinStep {
		return fmt.Errorf("%w: step %v is shorter than %v", ErrTooCostly, ev.Step, MinStep)
	}
	e, err := Parser().ParseExpr(expr)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	// Depth first: a deep tree is refused before the engine's own
	// preprocessing recurses through it.
	if d := depth(e); d > MaxDepth {
		return fmt.Errorf("%w: the expression is nested more than %d deep", ErrTooCostly, MaxDepth)
	}
	if e, err = promql.PreprocessExpr(e, ev.Start, ev.End, ev.Step); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	span := max(ev.End.Sub(ev.Start), 0)
	steps := 1.0
	if ev.Step > 0 {
		steps = float64(span/ev.Step) + 1
	}
	c := &coster{subqueryStep: ev.SubqueryStep, steps: steps}
	if err := c.walk(e, span, steps, false); err != nil {
		return err
	}
	if c.steps > MaxSteps {
		return fmt.Errorf("%w: evaluating it takes %.3g steps, more than %d (lengthen the subquery's step or shorten its range)", ErrTooCostly, c.steps, MaxSteps)
	}
	return nil
}

// addSat returns a+b for non-negative durations, saturating at the
// longest time.Duration instead of overflowing.
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// depth returns the number of nodes on the longest path from e down.
func depth(e parser.Node) int {
	d := 0
	_ = parser.Walk(depthVisitor{&d}, e, nil)
	return d
}

type depthVisitor struct{ max *int }

// Visit notes the depth of node and stops descending past MaxDepth+1,
// which is enough to refuse the tree.
func (v depthVisitor) Visit(node parser.Node, path []parser.Node) (parser.Visitor, error) {
	if node == nil {
		return nil, nil
	}
	d := len(path) + 1
	*v.max = max(*v.max, d)
	if d > MaxDepth {
		return nil, nil
	}
	return v, nil
}

// coster adds up the evaluation steps of subqueries.
type coster struct {
	subqueryStep time.Duration
	steps        float64 // so far; float64 as products may overflow int64
}

// walk adds the steps of the subqueries under node, evaluated over span
// (the distance between the first and last evaluation of node) reads
// times (its evaluations, as multiplied by the subqueries above it);
// pinned is true under an @ modifier, where every evaluation is the same.
//
// A subquery counts the larger of two numbers: the steps over which the
// engine evaluates its inner expression, once, over span plus its range
// (what it allocates), and the points the function around it reads,
// its range/step at each of reads (the work, multiplied by nesting).
func (c *coster) walk(node parser.Node, span time.Duration, reads float64, pinned bool) error {
	if sq, ok := node.(*parser.SubqueryExpr); ok {
		step := sq.Step
		if step == 0 {
			step = c.subqueryStep
		}
		if step < MinStep {
			return fmt.Errorf("%w: subquery step %s is shorter than %v", ErrTooCostly, step, MinStep)
		}
		if pinned || sq.Timestamp != nil || sq.StartOrEnd != 0 {
			span, pinned = 0, true
		}
		span = addSat(span, max(sq.Range, 0))
		window := float64(max(sq.Range, 0)/step) + 1
		reads *= window
		own := max(float64(span/step)+1, reads)
		c.steps += own
		if c.steps > MaxSteps {
			return fmt.Errorf("%w: evaluating it takes more than %d steps (the subquery [%s:%s] alone: %.3g; lengthen its step or shorten its range)",
				ErrTooCostly, MaxSteps, model.Duration(sq.Range), model.Duration(step), own)
		}
		return c.walk(sq.Expr, span, reads, pinned)
	}
	for child := range parser.ChildrenIter(node) {
		if err := c.walk(child, span, reads, pinned); err != nil {
			return err
		}
	}
	return nil
}
