package scenarios

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Evaluation is bounded before it starts. A scenario's evaluation context
// has no functions, so the only ways a short source builds a lot are for
// expressions and %{for} directives: each nested level multiplies the work
// by the length of what it iterates (six nested %{for} over a ten-element
// list, testdata/bad/for-bomb.hcl, ask for a million iterations from a
// few hundred bytes; a level more, ten times that).
// Before an expression is evaluated, its work is estimated from its syntax
// and the sizes of the variables it reads: an upper bound, since every
// for is taken to run over as many elements as its collection could hold,
// and every branch of a conditional to be taken. The estimates of one
// Parse add up against MaxEvalWork; for nesting is limited to
// MaxForNesting; and no string that comes out may exceed MaxStringBytes.

// cost is an upper bound on what evaluating an expression builds: size is
// the value's string bytes and elements, work the steps to build it.
type cost struct{ size, work float64 }

// costCap keeps estimates finite: products of sizes overflow float64.
const costCap = 1e300

func capped(x float64) float64 { return math.Min(x, costCap) }

// times multiplies two estimates; zero times anything is zero.
func times(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return capped(a * b)
}

// iterationWork is the work of one iteration of a for or splat beside its
// body's: hcl makes a scope for each, which costs about as much as
// building sixteen values.
const iterationWork = 16

// anonSymbol is the scope name of a splat's current element.
const anonSymbol = "[*]"

// bounder estimates one expression.
type bounder struct {
	vars map[string]float64 // size of each variable's value
	diag *hcl.Diagnostic    // the first problem found
}

// boundEval checks that expr may be evaluated: no for nested beyond
// MaxForNesting, and its estimated work within what is left of
// MaxEvalWork. vars are the sizes of the variables it may read (nil for
// constants). It adds a diagnostic and returns false when expr must not
// be evaluated.
func (d *decoder) boundEval(expr hcl.Expression, vars map[string]float64) bool {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		return true
	}
	b := &bounder{vars: vars}
	c := b.cost(se, nil, 0)
	if b.diag != nil {
		d.diags = append(d.diags, b.diag)
		return false
	}
	if d.work+c.work > MaxEvalWork {
		d.errorf(expr.Range().Ptr(), "Expression too costly",
			"Evaluating this expression could take %s steps (for expressions multiply the length of what they iterate over); a scenario may take at most %d in all. Iterate over shorter lists, or write the values out.",
			countText(c.work), MaxEvalWork)
		return false
	}
	d.work += c.work
	return true
}

// cost estimates e; scope holds the sizes of the for and splat symbols
// in reach, fors the number of for expressions e is the body of.
func (b *bounder) cost(e hclsyntax.Expression, scope map[string]float64, fors int) cost {
	if b.diag != nil || e == nil {
		return cost{}
	}
	sum := func(es ...hclsyntax.Expression) cost {
		var c cost
		for _, x := range es {
			xc := b.cost(x, scope, fors)
			c.size, c.work = capped(c.size+xc.size), capped(c.work+xc.work)
		}
		return c
	}
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return cost{valueSize(e.Val), 1}
	case *hclsyntax.TemplateExpr:
		c := sum(e.Parts...)
		return cost{c.size, capped(c.work + c.size + float64(len(e.Parts)))}
	case *hclsyntax.TemplateWrapExpr:
		c := b.cost(e.Wrapped, scope, fors)
		return cost{c.size, capped(c.work + 1)}
	case *hclsyntax.TemplateJoinExpr:
		c := b.cost(e.Tuple, scope, fors)
		return cost{c.size, capped(c.work + c.size)}
	case *hclsyntax.ScopeTraversalExpr:
		steps := float64(len(e.Traversal))
		root := e.Traversal.RootName()
		if size, ok := scope[root]; ok {
			return cost{size, steps}
		}
		if root == "var" && len(e.Traversal) > 1 {
			if a, ok := e.Traversal[1].(hcl.TraverseAttr); ok {
				return cost{b.vars[a.Name], steps}
			}
		}
		var all float64
		for _, size := range b.vars {
			all = capped(all + size)
		}
		return cost{all, steps}
	case *hclsyntax.RelativeTraversalExpr:
		c := b.cost(e.Source, scope, fors)
		return cost{c.size, capped(c.work + float64(len(e.Traversal)))}
	case *hclsyntax.AnonSymbolExpr:
		return cost{scope[anonSymbol], 1}
	case *hclsyntax.ParenthesesExpr:
		return b.cost(e.Expression, scope, fors)
	case *hclsyntax.FunctionCallExpr:
		c := sum(e.Args...)
		return cost{c.size, capped(c.work + 1)}
	case *hclsyntax.ConditionalExpr:
		cond, t, f := b.cost(e.Condition, scope, fors), b.cost(e.TrueResult, scope, fors), b.cost(e.FalseResult, scope, fors)
		return cost{math.Max(t.size, f.size), capped(cond.work + t.work + f.work + 1)}
	case *hclsyntax.BinaryOpExpr:
		// Arithmetic and logic make one value; comparing collections
		// walks both.
		l, r := b.cost(e.LHS, scope, fors), b.cost(e.RHS, scope, fors)
		return cost{1, capped(l.work + r.work + l.size + r.size + 1)}
	case *hclsyntax.UnaryOpExpr:
		c := b.cost(e.Val, scope, fors)
		return cost{1, capped(c.work + 1)}
	case *hclsyntax.IndexExpr:
		coll, key := b.cost(e.Collection, scope, fors), b.cost(e.Key, scope, fors)
		return cost{coll.size, capped(coll.work + key.work + 1)}
	case *hclsyntax.TupleConsExpr:
		if len(e.Exprs) > MaxElements {
			b.tooMany(len(e.Exprs), e.Range())
			return cost{}
		}
		c := sum(e.Exprs...)
		n := float64(len(e.Exprs))
		return cost{capped(c.size + n), capped(c.work + n)}
	case *hclsyntax.ObjectConsExpr:
		if len(e.Items) > MaxElements {
			b.tooMany(len(e.Items), e.Range())
			return cost{}
		}
		var c cost
		for _, item := range e.Items {
			ic := sum(item.KeyExpr, item.ValueExpr)
			c.size, c.work = capped(c.size+ic.size+1), capped(c.work+ic.work+1)
		}
		return c
	case *hclsyntax.ObjectConsKeyExpr:
		if !e.ForceNonLiteral {
			if kw := hcl.ExprAsKeyword(e.Wrapped); kw != "" {
				return cost{float64(len(kw)), 1}
			}
		}
		return b.cost(e.Wrapped, scope, fors)
	case *hclsyntax.ForExpr:
		// The collection is evaluated once; the key, value and condition
		// once per element.
		coll := b.cost(e.CollExpr, scope, fors)
		if fors >= MaxForNesting {
			b.diag = &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "for nested too deep",
				Detail: fmt.Sprintf("This for is inside %d others; a scenario may nest at most %d, since each level multiplies the work of reading it. Write the values out, or iterate once.",
					fors, MaxForNesting),
				Subject: hcl.RangeBetween(e.OpenRange, e.CollExpr.Range()).Ptr(),
			}
			return cost{}
		}
		inner := make(map[string]float64, len(scope)+2)
		for k, v := range scope {
			inner[k] = v
		}
		for _, name := range []string{e.KeyVar, e.ValVar} {
			if name != "" {
				inner[name] = coll.size
			}
		}
		var body cost
		for _, x := range []hclsyntax.Expression{e.KeyExpr, e.ValExpr, e.CondExpr} {
			if x != nil {
				xc := b.cost(x, inner, fors+1)
				body.size, body.work = capped(body.size+xc.size), capped(body.work+xc.work)
			}
		}
		n := coll.size
		return cost{times(n, body.size+1), capped(coll.work + times(n, body.work+iterationWork))}
	case *hclsyntax.SplatExpr:
		src := b.cost(e.Source, scope, fors)
		inner := make(map[string]float64, len(scope)+1)
		for k, v := range scope {
			inner[k] = v
		}
		inner[anonSymbol] = src.size
		each := b.cost(e.Each, inner, fors)
		n := src.size
		return cost{times(n, each.size+1), capped(src.work + times(n, each.work+iterationWork))}
	case *hclsyntax.ExprSyntaxError:
		return cost{0, 1}
	default:
		// An expression type this estimate does not know (a newer hcl):
		// refuse it rather than evaluate it unbounded.
		b.diag = &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported expression",
			Detail:   fmt.Sprintf("This kind of expression (%T) cannot be used in a scenario; write the value out.", e),
			Subject:  e.Range().Ptr(),
		}
		return cost{}
	}
}

// tooMany reports a list or map of n elements written at rng.
func (b *bounder) tooMany(n int, rng hcl.Range) {
	b.diag = &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many elements",
		Detail:   fmt.Sprintf("This has %d elements; a list or map in a scenario may have at most %d.", n, MaxElements),
		Subject:  rng.Ptr(),
	}
}

// valueLimits returns a problem with v's size, or "": a string longer
// than MaxStringBytes, a list or map longer than MaxElements.
func valueLimits(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	msg := ""
	_ = cty.Walk(v, func(_ cty.Path, e cty.Value) (bool, error) {
		if !e.IsKnown() || e.IsNull() {
			return true, nil
		}
		ty := e.Type()
		switch {
		case ty == cty.String && len(e.AsString()) > MaxStringBytes:
			msg = fmt.Sprintf("a string of %d bytes; a string in a scenario may be at most 64 KiB (%d bytes)", len(e.AsString()), MaxStringBytes)
		case (ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType()) && e.LengthInt() > MaxElements:
			msg = fmt.Sprintf("a list or map of %d elements; one may have at most %d", e.LengthInt(), MaxElements)
		}
		return msg == "", nil
	})
	return msg
}

// valueSize is the string bytes plus elements of v: an upper bound on the
// elements a for can take from it, and on the bytes a template can make.
func valueSize(v cty.Value) float64 {
	v, _ = v.UnmarkDeep()
	var size float64
	_ = cty.Walk(v, func(_ cty.Path, e cty.Value) (bool, error) {
		size++
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.String {
			size += float64(len(e.AsString()))
		}
		return true, nil
	})
	return capped(size)
}

// countText renders a large estimate: "12,345", "3.2e+09", "more than 1e300".
func countText(x float64) string {
	switch {
	case x >= costCap:
		return "more than 1e300"
	case x >= 1e9:
		return fmt.Sprintf("%.2g", x)
	default:
		return fmt.Sprintf("%d", int64(x))
	}
}
