package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// statusList reads target.ok_status: a list whose elements are HTTP
// status codes (whole numbers 100–599; a string of three digits too) or
// classes "1xx" … "5xx" (any case), resolved into the sorted codes they
// name without repeats. nil when absent or invalid.
func (b *body) statusList(name string) []int {
	v, ok := b.eval(name, cty.DynamicPseudoType)
	if !ok {
		return nil
	}
	attr := b.content.Attributes[name]
	ty := v.Type()
	if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
		b.fail(name, "Incorrect attribute value type",
			"%s must be a list of HTTP status codes and classes, such as [200, 204] or [\"2xx\", 304].", name)
		return nil
	}
	// Point at the element when the list is written out.
	var elems []hclsyntax.Expression
	if tup, ok := attr.Expr.(*hclsyntax.TupleConsExpr); ok && len(tup.Exprs) == v.LengthInt() {
		elems = tup.Exprs
	}
	at := func(i int) *hcl.Range {
		if elems != nil {
			return elems[i].Range().Ptr()
		}
		return attr.Expr.Range().Ptr()
	}
	seen := map[int]bool{}
	bad := false
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		lo, hi, ok := statusRange(e)
		if !ok {
			b.d.errorf(at(i), "Invalid status",
				"%s is not an HTTP status code (a whole number from 100 to 599) or class (\"1xx\" to \"5xx\"), such as 204 or \"2xx\".", literal(e))
			bad = true
			continue
		}
		for c := lo; c <= hi; c++ {
			seen[c] = true
		}
	}
	if elems != nil {
		for i, e := range elems {
			b.d.src.elems[fmt.Sprintf("%s[%d]", b.sub(name), i)] = e.Range()
		}
	}
	if bad {
		b.d.src.failed[b.sub(name)] = true
		return nil
	}
	if len(seen) == 0 {
		b.fail(name, "Empty ok_status",
			"ok_status = [] would count no response as a success. Leave it out for the default, 200–299, or list the codes that count, such as [200, 204].")
		return nil
	}
	codes := make([]int, 0, len(seen))
	for c := range seen {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	return codes
}

// statusRange returns the codes an ok_status element names: one code, or
// the hundred of a class.
func statusRange(e cty.Value) (lo, hi int, ok bool) {
	if e.IsNull() || !e.IsKnown() {
		return 0, 0, false
	}
	code := func(f float64) (int, int, bool) {
		if f != math.Trunc(f) || f < 100 || f > 599 {
			return 0, 0, false
		}
		return int(f), int(f), true
	}
	switch e.Type() {
	case cty.Number:
		f, _ := e.AsBigFloat().Float64()
		return code(f)
	case cty.String:
		s := strings.ToLower(strings.TrimSpace(e.AsString()))
		if len(s) == 3 && s[0] >= '1' && s[0] <= '5' && s[1:] == "xx" {
			c := int(s[0]-'0') * 100
			return c, c + 99, true
		}
		if n, err := strconv.Atoi(s); err == nil && len(s) == 3 {
			return code(float64(n))
		}
	}
	return 0, 0, false
}
