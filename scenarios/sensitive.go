package scenarios

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Sensitive variables (`sensitive = true`). Their values are marked in the
// evaluation context, so that cty carries the mark to every value computed
// from them and hcl's diagnostic writer leaves them out of its "with
// var.NAME as VALUE" lines. What else could show a value is redacted from
// the *Error before it is returned: every text a sensitive value can take
// (the raw --var text, the value, its HCL literal, and the values of the
// attributes computed from it; blank texts excepted) is replaced by
// SensitiveValue in summaries and details; a sensitive --var value's pseudo-file reads SensitiveValue;
// and the default of a sensitive variable is masked in the file's source
// lines.

// SensitiveValue is what a sensitive variable's value reads wherever the
// scenario is reported.
const SensitiveValue = "(sensitive)"

// markType is the type of sensitiveMark, private so no other mark equals it.
type markType string

// sensitiveMark marks the values of sensitive variables in the context.
const sensitiveMark markType = "sensitive"

// mask is a part of a file to hide in rendered snippets: every occurrence
// of text within rng, or all of rng when text is "".
type mask struct {
	rng  hcl.Range
	text string
}

// addSecret records the value of a sensitive variable: its texts go to
// Scenario.Secrets and are redacted from diagnostics. raw is the --var
// text it came from, or "".
func (d *decoder) addSecret(v cty.Value, raw string) {
	forms := textForms(v)
	if raw != "" {
		forms = append(forms, raw, strings.TrimSpace(raw))
	}
	forms = append(forms, literal(v))
	for _, f := range forms {
		if strings.TrimSpace(f) != "" && !contains(d.secrets, f) {
			d.secrets = append(d.secrets, f)
		}
	}
	sortSecrets(d.secrets)
	d.redacted = append(d.redacted, forms...)
}

// sensitivePaths returns the paths within v of the values computed from
// a sensitive variable, and v without marks.
func sensitivePaths(v cty.Value) (cty.Value, []cty.Path) {
	uv, pvm := v.UnmarkDeepWithPaths()
	var paths []cty.Path
	for _, pm := range pvm {
		if pm.Marks.Has(sensitiveMark) {
			paths = append(paths, pm.Path)
		}
	}
	return uv, paths
}

// derive records the values at paths within an attribute's value v, which
// were computed from a sensitive variable: their texts are redacted from
// diagnostics too (a duration or a sum built from the secret would show it
// otherwise). The rest of v is not: a header's name is not a secret
// because its value is.
func (d *decoder) derive(v cty.Value, paths []cty.Path) {
	for _, p := range paths {
		sub, err := p.Apply(v)
		if err != nil {
			continue
		}
		d.redacted = append(d.redacted, textForms(sub)...)
		d.redacted = append(d.redacted, literal(sub))
	}
}

// textForms returns how the leaves of v (strings, numbers, bools) and
// the keys of its maps are printed: a string as itself, a number as HCL,
// %g and %d print it.
func textForms(v cty.Value) []string {
	v, _ = v.UnmarkDeep()
	var out []string
	_ = cty.Walk(v, func(path cty.Path, e cty.Value) (bool, error) {
		if len(path) > 0 {
			switch step := path[len(path)-1].(type) {
			case cty.GetAttrStep:
				out = append(out, step.Name)
			case cty.IndexStep:
				if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
					out = append(out, step.Key.AsString())
				}
			}
		}
		if !e.IsKnown() || e.IsNull() {
			return true, nil
		}
		switch e.Type() {
		case cty.String:
			out = append(out, e.AsString())
		case cty.Number:
			bf := e.AsBigFloat()
			out = append(out, bf.Text('g', -1))
			f, _ := bf.Float64()
			out = append(out, fmt.Sprintf("%g", f), fmt.Sprintf("%v", f))
			if bf.IsInt() {
				i, _ := bf.Int(new(big.Int))
				out = append(out, i.String())
			}
		case cty.Bool:
			out = append(out, fmt.Sprint(e.True()))
		}
		return true, nil
	})
	return out
}

// sortSecrets orders texts longest first (so that a redaction replaces
// the longest match), then alphabetically.
func sortSecrets(s []string) {
	sort.Slice(s, func(i, j int) bool {
		if len(s[i]) != len(s[j]) {
			return len(s[i]) > len(s[j])
		}
		return s[i] < s[j]
	})
}

// redact removes sensitive values from e: from every summary and detail,
// from the subjects and files of sensitive --var values, and from the
// masked parts of the source. files is not modified: e gets copies.
func (d *decoder) redact(e *Error) *Error {
	var texts []string
	for _, t := range d.redacted {
		if strings.TrimSpace(t) != "" && !contains(texts, t) {
			texts = append(texts, t)
		}
	}
	sortSecrets(texts)
	var pairs []string
	for _, t := range texts {
		pairs = append(pairs, t, SensitiveValue)
	}
	replacer := strings.NewReplacer(pairs...)

	files := make(map[string]*hcl.File, len(e.Files))
	for name, f := range e.Files {
		files[name] = f
	}
	for name := range d.hidden {
		files[name] = &hcl.File{Bytes: []byte(SensitiveValue), Body: hcl.EmptyBody()}
	}
	whole := func(name string) *hcl.Range {
		return &hcl.Range{Filename: name, Start: hcl.InitialPos,
			End: hcl.Pos{Line: 1, Column: len(SensitiveValue) + 1, Byte: len(SensitiveValue)}}
	}
	for _, diag := range e.Diagnostics {
		if len(pairs) > 0 {
			diag.Summary, diag.Detail = replacer.Replace(diag.Summary), replacer.Replace(diag.Detail)
		}
		if diag.Subject != nil && d.hidden[diag.Subject.Filename] {
			diag.Subject = whole(diag.Subject.Filename)
			diag.Context, diag.Expression, diag.EvalContext = nil, nil, nil
		}
		if diag.Context != nil && d.hidden[diag.Context.Filename] {
			diag.Context = nil
		}
	}
	for _, m := range d.masks {
		f := files[m.rng.Filename]
		if f == nil || d.hidden[m.rng.Filename] {
			continue
		}
		masked := append([]byte(nil), f.Bytes...)
		start, end := max(0, m.rng.Start.Byte), min(len(masked), m.rng.End.Byte)
		for i := start; i < end; i++ {
			if m.text == "" {
				if masked[i] != '\n' && masked[i] != '\r' {
					masked[i] = '*'
				}
				continue
			}
			if bytes.HasPrefix(masked[i:end], []byte(m.text)) {
				for j := i; j < i+len(m.text); j++ {
					masked[j] = '*'
				}
				i += len(m.text) - 1
			}
		}
		files[m.rng.Filename] = &hcl.File{Bytes: masked, Body: f.Body, Nav: f.Nav}
	}
	e.Files = files
	return e
}

// hideWebhookParts treats the variables notify.webhook is built from as
// secrets: each reads SensitiveValue in s.Variables (result.json showed a
// webhook's path held in a variable of its own), and its text is
// redacted as a sensitive value's is. A value shorter than four
// characters is not redacted from text (a "1" would blank every digit
// one of the reports holds); it is still hidden from Variables.
func (d *decoder) hideWebhookParts(s *Scenario) {
	if len(d.webhookVars) == 0 || d.ctx == nil {
		return
	}
	vars := d.ctx.Variables["var"]
	for _, name := range d.webhookVars {
		if _, ok := s.Variables[name]; !ok {
			continue
		}
		s.Variables[name] = SensitiveValue
		if !vars.Type().IsObjectType() || !vars.Type().HasAttribute(name) {
			continue
		}
		v, _ := vars.GetAttr(name).Unmark()
		if v.Type() == cty.String && v.IsKnown() && !v.IsNull() && len(v.AsString()) >= 4 {
			d.addSecret(v, "")
		}
	}
}

// keptSource is src with the default of every sensitive variable replaced
// by "(sensitive)" (null when the default is not a string), for the copy
// a run keeps in its folder.
func (d *decoder) keptSource(src []byte) []byte {
	var out []byte
	last := 0
	for _, m := range d.masks {
		if m.text != "" || m.rng.Start.Byte < last || m.rng.End.Byte > len(src) || m.rng.Start.Byte >= m.rng.End.Byte {
			continue
		}
		out = append(out, src[last:m.rng.Start.Byte]...)
		if src[m.rng.Start.Byte] == '"' {
			out = append(out, fmt.Sprintf("%q", SensitiveValue)...)
		} else {
			out = append(out, "null"...)
		}
		last = m.rng.End.Byte
	}
	return append(out, src[last:]...)
}
