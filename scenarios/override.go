package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// labelledBlocks are the block types that carry a name label: in a --set
// path the element after the type is the label ("layer.gateway.timeout").
var labelledBlocks = []string{"variable", "layer", "stop_when", "data", "fault", "request"}

// Override sets attributes of a scenario's source text, each given as
// PATH=VALUE (trigger simulate --set): PATH names blocks down to an
// attribute, "client.retry.budget", "service.admission_bound",
// "layer.gateway.max_retries" (a labelled block by its label; "scenario"
// is the one scenario block whatever its name). A block on the path that
// is missing is added; the attribute is replaced or added. VALUE is an
// HCL literal (0.1, true, ["timeout"], "500ms") or, when it is none, a
// string (500ms). The result is the source with the changes, to be read
// by Parse as usual: what a value means is checked there.
func Override(filename string, src []byte, sets []string) ([]byte, error) {
	if len(sets) == 0 {
		return src, nil
	}
	f, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", filename, diags.Error())
	}
	for _, set := range sets {
		path, raw, ok := strings.Cut(set, "=")
		if !ok || strings.TrimSpace(path) == "" {
			return nil, fmt.Errorf("--set %q: want PATH=VALUE, e.g. client.retry.budget=0.1", set)
		}
		parts := strings.Split(strings.TrimSpace(path), ".")
		if len(parts) < 2 {
			return nil, fmt.Errorf("--set %q: the path names a block and an attribute, e.g. service.capacity", set)
		}
		for _, p := range parts {
			if !hclsyntax.ValidIdentifier(p) {
				return nil, fmt.Errorf("--set %q: %q is no block, label or attribute name", set, p)
			}
		}
		body := f.Body()
		for i := 0; i < len(parts)-1; i++ {
			typ := parts[i]
			var labels []string
			if slices.Contains(labelledBlocks, typ) {
				if i+1 >= len(parts)-1 {
					return nil, fmt.Errorf("--set %q: a %s block is named: %s.NAME.ATTRIBUTE", set, typ, typ)
				}
				i++
				labels = []string{parts[i]}
			}
			blk := body.FirstMatchingBlock(typ, labels)
			if typ == "scenario" {
				for _, b := range body.Blocks() {
					if b.Type() == "scenario" {
						blk = b
						break
					}
				}
			}
			if blk == nil {
				blk = body.AppendNewBlock(typ, labels)
			}
			body = blk.Body()
		}
		v, err := setValue(raw)
		if err != nil {
			return nil, fmt.Errorf("--set %q: %w", set, err)
		}
		expandOneLine(body)
		body.SetAttributeValue(parts[len(parts)-1], v)
	}
	return f.Bytes(), nil
}

// expandOneLine rewrites a one-line block's body (`service { capacity =
// 200 }`, which holds one attribute) over lines, so that another
// attribute can be added to it.
func expandOneLine(body *hclwrite.Body) {
	toks := body.BuildTokens(nil)
	attrs := body.Attributes()
	if len(toks) == 0 {
		body.AppendNewline() // `a {}`: what is added goes on a line of its own
		return
	}
	if toks[0].Type == hclsyntax.TokenNewline || len(attrs) != 1 || len(body.Blocks()) != 0 {
		return
	}
	for name, a := range attrs {
		var expr hclwrite.Tokens
		for _, tk := range a.Expr().BuildTokens(nil) {
			c := *tk
			c.Bytes = append([]byte(nil), tk.Bytes...)
			expr = append(expr, &c)
		}
		// RemoveAttribute, not Clear: Clear leaves the attribute findable
		// by name (hclwrite v2.25), and a later set would change a detached copy.
		body.RemoveAttribute(name)
		body.AppendNewline()
		body.SetAttributeRaw(name, expr)
	}
}

// setValue reads a --set value: an HCL literal that needs no variables,
// or else the text as a string.
func setValue(raw string) (cty.Value, error) {
	text := strings.TrimSpace(raw)
	expr, diags := hclsyntax.ParseExpression([]byte(text), "--set", hcl.InitialPos)
	if !diags.HasErrors() && len(expr.Variables()) == 0 {
		if v, diags := expr.Value(nil); !diags.HasErrors() && v.IsWhollyKnown() {
			return v, nil
		}
	}
	if len(text) > MaxFileBytes {
		return cty.NilVal, fmt.Errorf("the value is longer than %d bytes", MaxFileBytes)
	}
	return cty.StringVal(text), nil
}
