package scenarios

import (
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// literal renders a known value as an HCL literal: 50, 0.25, true, "text",
// ["a", "b"], { key = "value" }. It is how Scenario.Variables shows the
// final value of each variable in reports.
func literal(v cty.Value) string {
	ty := v.Type()
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "(unknown)"
	case ty == cty.String:
		return quoteHCL(v.AsString())
	case ty == cty.Number:
		return v.AsBigFloat().Text('g', -1)
	case ty == cty.Bool:
		return strconv.FormatBool(v.True())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		parts := []string{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			parts = append(parts, literal(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ty.IsMapType() || ty.IsObjectType():
		type kv struct{ k, v string }
		var parts []kv
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			parts = append(parts, kv{k.AsString(), literal(e)})
		}
		if len(parts) == 0 {
			return "{}"
		}
		sort.Slice(parts, func(i, j int) bool { return parts[i].k < parts[j].k })
		out := make([]string, len(parts))
		for i, p := range parts {
			out[i] = quoteHCL(p.k) + " = " + p.v
		}
		return "{ " + strings.Join(out, ", ") + " }"
	default:
		return ty.FriendlyName()
	}
}

// quoteHCL quotes s as an HCL string literal: Go's escapes for quotes,
// backslashes and control characters, and template sequences doubled.
func quoteHCL(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}
