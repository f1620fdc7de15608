package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Variable values besides --var, as Terraform takes them: TRIGGER_VAR_NAME
// environment variables, then --var-file files (NAME = VALUE lines, HCL,
// like a .tfvars file), then --var, each later one winning.

// varEnvPrefix starts the environment variables that set a scenario
// variable: TRIGGER_VAR_port=8080 is --var port=8080.
const varEnvPrefix = "TRIGGER_VAR_"

// maxVarFileBytes bounds a --var-file (a scenario's own bound).
const maxVarFileBytes = 1 << 20

// maxVarFileNesting bounds the brackets' nesting in a --var-file, before
// HCL's recursive parser sees it.
const maxVarFileNesting = 64

// readVarFile reads a --var-file: one NAME = VALUE attribute a line, each
// value an HCL literal (string, number, bool, list, map). It returns each
// value as the text --var would carry for it: a string's own text, any
// other value's HCL source, so the scenario's reader converts both alike.
// Errors name the file and line.
func readVarFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--var-file: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxVarFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--var-file %s: %w", path, err)
	}
	if len(src) > maxVarFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a var file", path, maxVarFileBytes)
	}
	if line := tooNested(src); line > 0 {
		return nil, fmt.Errorf("%s:%d: brackets nested deeper than %d", path, line, maxVarFileNesting)
	}
	file, diags := hclparse.NewParser().ParseHCL(src, path)
	if diags.HasErrors() {
		return nil, diagError(path, diags)
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return nil, fmt.Errorf("%s: not HCL native syntax", path)
	}
	if len(body.Blocks) > 0 {
		b := body.Blocks[0]
		return nil, fmt.Errorf("%s:%d: %s block: a var file holds only NAME = VALUE lines", path, b.TypeRange.Start.Line, b.Type)
	}
	attrs := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		attrs = append(attrs, a)
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	out := map[string]string{}
	for _, a := range attrs {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			return nil, diagError(path, diags)
		}
		line := a.SrcRange.Start.Line
		switch {
		case v.IsNull():
			return nil, fmt.Errorf("%s:%d: %s = null: give a value, or leave the line out", path, line, a.Name)
		case !v.IsWhollyKnown():
			return nil, fmt.Errorf("%s:%d: %s: the value must be a literal", path, line, a.Name)
		case v.Type() == cty.String:
			out[a.Name] = v.AsString()
		default:
			r := a.Expr.Range()
			out[a.Name] = string(src[r.Start.Byte:r.End.Byte])
		}
	}
	return out, nil
}

// diagError is the first error of diags as "FILE:LINE: summary: detail"
// (no source snippet: a sensitive value stays unquoted).
func diagError(path string, diags hcl.Diagnostics) error {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		line := 0
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		if d.Summary == "Variables not allowed" || d.Summary == "Function calls not allowed" {
			msg += " (a var file's values are literals)"
		}
		return fmt.Errorf("%s:%d: %s", path, line, msg)
	}
	return fmt.Errorf("%s: %s", path, diags.Error())
}

// tooNested is the 1-based line where src's brackets first nest deeper
// than maxVarFileNesting (counted naively, strings included), or 0.
func tooNested(src []byte) int {
	depth, line := 0, 1
	for _, c := range src {
		switch c {
		case '\n':
			line++
		case '(', '[', '{':
			depth++
			if depth > maxVarFileNesting {
				return line
			}
		case ')', ']', '}':
			depth = max(0, depth-1)
		}
	}
	return 0
}

// declaredVariable matches a variable block's header, `variable "NAME" {`
// (or with a bare NAME), at the start of a line.
var declaredVariable = regexp.MustCompile(`(?m)^[ \t]*variable[ \t]+(?:"([^"\n]*)"|([A-Za-z_][A-Za-z0-9_-]*))[ \t]*\{`)

// declaredVariables are the names of the variables src declares, found
// by their block headers without parsing (the scenario's reader refuses
// what would overwhelm HCL's parser before it parses): the environment's
// TRIGGER_VAR_ values apply to those only, as Terraform's TF_VAR_ ones do.
func declaredVariables(src []byte) []string {
	var names []string
	for _, m := range declaredVariable.FindAllSubmatch(src, -1) {
		names = append(names, string(m[1])+string(m[2]))
	}
	return names
}

// envVars are the TRIGGER_VAR_NAME values for the declared names.
func envVars(declared []string, lookup func(string) (string, bool)) map[string]string {
	out := map[string]string{}
	for _, name := range declared {
		if v, ok := lookup(varEnvPrefix + name); ok {
			out[name] = v
		}
	}
	return out
}
