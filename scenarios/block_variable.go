package scenarios

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// ErrVarSyntax is returned (wrapped) by ParseVar for a flag value that is
// not NAME=VALUE with NAME an identifier.
var ErrVarSyntax = errors.New("want NAME=VALUE")

// ParseVar splits a --var flag value "NAME=VALUE" at the first "=". NAME
// must be an HCL identifier; VALUE may be empty and may contain "=".
func ParseVar(s string) (name, value string, err error) {
	name, value, found := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !found || name == "" {
		return "", "", fmt.Errorf("parse --var %q: %w", s, ErrVarSyntax)
	}
	if !hclsyntax.ValidIdentifier(name) {
		return "", "", fmt.Errorf("parse --var %q: %q is not a variable name: %w", s, name, ErrVarSyntax)
	}
	return name, value, nil
}

// VariableText is the --var text that gives a variable the value
// Scenario.Variables renders as the HCL literal lit: a string's own text
// (not its quoted literal), any other value's literal as it is.
func VariableText(lit string) string {
	expr, diags := hclsyntax.ParseExpression([]byte(lit), "", hcl.InitialPos)
	if diags.HasErrors() {
		return lit
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return lit
	}
	return v.AsString()
}

// varFilePrefix names the pseudo-file holding one --var override's value,
// so its diagnostics render with a snippet like those of the scenario.
const varFilePrefix = "<value for var."

func varFile(name string) string { return varFilePrefix + name + ">" }

func isVarFile(filename string) bool { return strings.HasPrefix(filename, varFilePrefix) }

// variableSchema is a variable block's.
var variableSchema = &hcl.BodySchema{Attributes: attrs("default", "description", "sensitive")}

// variable is one declared variable block.
type variable struct {
	name      string
	def       hcl.Range
	value     cty.Value // the default, then the override
	has       bool      // value is set
	sensitive bool      // sensitive = true: the value is never shown
	raw       string    // the --var text, if any
}

// variables decodes the variable blocks, applies the --var overrides and
// sets d.ctx to an evaluation context with a "var" object holding every
// variable that has a value. It returns the values rendered as HCL literals.
// Problems are added to d.diags; files receives one pseudo-file per
// override so that diagnostics on an override show its text.
func (d *decoder) variables(blks []*hcl.Block, overrides map[string]string, files map[string]*hcl.File) map[string]string {
	vars := map[string]*variable{}
	var order []string
	for _, blk := range blks {
		name := blk.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			d.errorf(blk.LabelRanges[0].Ptr(), "Invalid variable name",
				"%q is not a valid variable name: use letters, digits, underscores and dashes, starting with a letter.", name)
			continue
		}
		if prev := vars[name]; prev != nil {
			d.errorf(blk.LabelRanges[0].Ptr(), "Duplicate variable",
				"Variable %q is already declared at %s.", name, rangeLine(prev.def))
			continue
		}
		v := &variable{name: name, def: blk.DefRange}
		b := d.open("variable", "variable."+name, blk.Body, blk.DefRange, schemaOf("variable"))
		v.sensitive = b.constBool("sensitive")
		if a := b.content.Attributes["default"]; a != nil && d.checkLiterals(a.Expr) && d.boundEval(a.Expr, nil) {
			if v.sensitive {
				d.masks = append(d.masks, mask{rng: a.Expr.Range()})
			}
			// A default is a constant: nil context, so a reference is
			// hcl's "Variables not allowed".
			val, diags := a.Expr.Value(nil)
			d.diags = append(d.diags, diags...)
			switch {
			case diags.HasErrors() || val.IsNull():
			case hugeNumber(val) || !val.IsWhollyKnown():
				d.errorf(a.Expr.Range().Ptr(), "Invalid default", "The default of %q must be a known value with numbers within ±1e308.", name)
				d.src.failed["var."+name] = true
			case valueLimits(val) != "":
				d.errorf(a.Expr.Range().Ptr(), "Value too large", "The default of %q holds %s.", name, valueLimits(val))
				d.src.failed["var."+name] = true
			default:
				v.value, v.has = val, true
			}
		}
		b.str("description", "")
		vars[name] = v
		order = append(order, name)
	}
	sort.Strings(order)
	d.declared = order

	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		raw := overrides[name]
		v := vars[name]
		if v == nil {
			detail := fmt.Sprintf("--var %s=... sets a variable the scenario does not declare.", name)
			if s := closest(name, order); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			if len(order) > 0 {
				detail += " Declared variables: " + strings.Join(order, ", ") + "."
			} else {
				detail += " The scenario declares no variables."
			}
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable", Detail: detail})
			continue
		}
		fn := varFile(name)
		files[fn] = &hcl.File{Bytes: []byte(raw), Body: hcl.EmptyBody()}
		if v.sensitive {
			d.hidden[fn] = true
			d.redacted = append(d.redacted, raw, strings.TrimSpace(raw))
		}
		v.raw = raw
		val, ok := d.override(v, raw, fn)
		if !ok {
			v.value, v.has = cty.NilVal, false
			d.src.failed["var."+name] = true
			continue
		}
		v.value, v.has = val, true
	}

	values := map[string]cty.Value{}
	rendered := map[string]string{}
	for _, name := range order {
		v := vars[name]
		if !v.has {
			if !d.src.failed["var."+name] {
				d.errorf(v.def.Ptr(), "Missing value for variable",
					"Variable %q has no default and no value: add default = ... to the block, or run with --var %s=VALUE.", name, name)
			}
			d.src.failed["var."+name] = true
			continue
		}
		d.varSizes[name] = valueSize(v.value)
		if v.sensitive {
			if d.sensitiveVars == nil {
				d.sensitiveVars = map[string]bool{}
			}
			d.sensitiveVars[name] = true
			d.addSecret(v.value, v.raw)
			values[name] = v.value.Mark(sensitiveMark)
			rendered[name] = SensitiveValue
			continue
		}
		values[name] = v.value
		rendered[name] = literal(v.value)
	}
	d.ctx = &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(values)}, Functions: d.functions()}
	return rendered
}

// constBool reads a bool attribute that must be a constant (a variable's
// sensitive flag, read before any variable has a value); false when absent.
func (b *body) constBool(name string) bool {
	a := b.content.Attributes[name]
	if a == nil {
		return false
	}
	if !b.d.checkLiterals(a.Expr) || !b.d.boundEval(a.Expr, nil) {
		return false
	}
	v, diags := a.Expr.Value(nil)
	b.d.diags = append(b.d.diags, diags...)
	if diags.HasErrors() || v.IsNull() {
		return false
	}
	cv, err := convert.Convert(v, cty.Bool)
	if err != nil {
		b.fail(name, "Incorrect attribute value type", "%s must be true or false.", name)
		return false
	}
	return cv.True()
}

// override converts the raw --var value to the type of the variable's
// default: number, bool and string are converted from the text; a list,
// set, tuple, map or object default makes the text an HCL expression. A
// variable without default takes the text as a string (HCL converts it
// where a number or bool is needed). The text of a sensitive variable is
// shown as SensitiveValue, and hcl's diagnostics on it lose their detail
// (it may quote the text).
func (d *decoder) override(v *variable, raw, filename string) (cty.Value, bool) {
	whole := hcl.Range{
		Filename: filename,
		Start:    hcl.InitialPos,
		End:      hcl.Pos{Line: 1, Column: len(raw) + 1, Byte: len(raw)},
	}
	shown := raw
	if v.sensitive {
		shown = SensitiveValue
	}
	if len(raw) > MaxStringBytes {
		d.errorf(whole.Ptr(), "Value too large",
			"--var %s: the value is %d bytes; a value may be at most 64 KiB (%d bytes).", v.name, len(raw), MaxStringBytes)
		return cty.NilVal, false
	}
	if !v.has {
		return cty.StringVal(raw), true
	}
	ty := v.value.Type()
	switch {
	case ty == cty.String:
		return cty.StringVal(raw), true
	case ty == cty.Number, ty == cty.Bool:
		val, err := convert.Convert(cty.StringVal(strings.TrimSpace(raw)), ty)
		if err == nil && hugeNumber(val) {
			d.errorf(whole.Ptr(), "Invalid value for variable", "--var %s=%s: numbers must be within ±1e308.", v.name, shown)
			return cty.NilVal, false
		}
		if err != nil {
			d.errorf(whole.Ptr(), "Invalid value for variable",
				"--var %s=%s: the default of %q is a %s, so its value must be a %s too, %s.",
				v.name, shown, v.name, ty.FriendlyName(), ty.FriendlyName(), typeExample(ty))
			return cty.NilVal, false
		}
		return val, true
	}
	hclDiags := func(diags hcl.Diagnostics) {
		for _, diag := range diags {
			if v.sensitive {
				diag.Detail = fmt.Sprintf("--var %s: the value is not valid HCL (it is not shown: the variable is sensitive). Write it as %s.", v.name, typeExample(ty))
			}
			d.diags = append(d.diags, diag)
		}
	}
	if diag := prescan(filename, []byte(raw), true); diag != nil {
		d.diags = append(d.diags, diag) // it quotes nothing
		return cty.NilVal, false
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), filename, hcl.InitialPos)
	hclDiags(diags)
	if diags.HasErrors() || !d.checkLiterals(expr) || !d.boundEval(expr, nil) {
		return cty.NilVal, false
	}
	val, diags := expr.Value(nil)
	hclDiags(diags)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if hugeNumber(val) {
		d.errorf(expr.Range().Ptr(), "Invalid value for variable", "--var %s: numbers must be within ±1e308.", v.name)
		return cty.NilVal, false
	}
	listy := func(t cty.Type) bool { return t.IsListType() || t.IsSetType() || t.IsTupleType() }
	mappy := func(t cty.Type) bool { return t.IsMapType() || t.IsObjectType() }
	if (listy(ty) && !listy(val.Type())) || (mappy(ty) && !mappy(val.Type())) {
		d.errorf(expr.Range().Ptr(), "Invalid value for variable",
			"--var %s: the default of %q is a %s, so the value must be one too, written in HCL, %s.",
			v.name, v.name, kindName(ty), typeExample(ty))
		return cty.NilVal, false
	}
	if msg := valueLimits(val); msg != "" {
		d.errorf(expr.Range().Ptr(), "Value too large", "--var %s: the value holds %s.", v.name, msg)
		return cty.NilVal, false
	}
	return val, true
}

// kindName names the kind of a collection type as users write it.
func kindName(ty cty.Type) string {
	if ty.IsListType() || ty.IsSetType() || ty.IsTupleType() {
		return "list"
	}
	return "map"
}

// typeExample shows how a value of type ty is written on the command line.
func typeExample(ty cty.Type) string {
	switch {
	case ty == cty.Number:
		return "such as 50 or 0.25"
	case ty == cty.Bool:
		return "true or false"
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		return `such as '["a", "b"]'`
	default:
		return `such as '{ name = "value" }'`
	}
}
