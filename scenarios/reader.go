package scenarios

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/trigger-test/trigger/vocab"
)

// decoder is the state of one Parse: the evaluation context (var.NAME),
// every diagnostic so far, and where every value came from.
type decoder struct {
	ctx      *hcl.EvalContext
	declared []string // declared variable names, for "did you mean"
	diags    hcl.Diagnostics
	src      *sources

	varSizes map[string]float64 // size of each variable's value (see valueSize)
	work     float64            // evaluation work estimated so far (see boundEval)

	// perRequest is set while a target's or request's url, headers and
	// body are evaluated (withPerRequest): they may use request.id,
	// request.seq and random.uuid.
	perRequest bool
	// slots is the target's slot table (vocab.Slot), FixedSlots first,
	// then each data column's and each random::int call's, and the JSON
	// forms jsonencode asks for (jsonSlot); draws counts the random::int
	// calls. data are the data sets read, dataSlots[k] each of data set
	// k's columns' slot, badData the names of those that failed.
	slots     []vocab.Slot
	draws     int
	jsonSlots map[int]int
	data      []vocab.DataSet
	dataSlots []map[string]int
	badData   []string
	// grpcFiles are the target's descriptor set's files, nil without one.
	grpcFiles *protoregistry.Files
	dir       string     // the scenario's folder, data files' base
	files     fileAccess // where data and TLS files may come from
	gateBody  hcl.Range  // the gate block's body, left out of Scenario.Hash
	// notifyBody is the notify block's body, left out of Scenario.Hash too.
	notifyBody hcl.Range
	// campaignBody and expectedBody are the campaign's and expected_spike's
	// bodies, left out of Scenario.Hash: a run of the scenario is the same
	// test with or without a campaign around it.
	campaignBody, expectedBody hcl.Range
	webhook                    string   // notify.webhook, a secret: no variable's value shows it
	webhookVars                []string // the variables notify.webhook is built from: secrets too

	secrets  []string        // Scenario.Secrets
	redacted []string        // texts to redact from diagnostics (see redact)
	hidden   map[string]bool // --var pseudo-files of sensitive variables
	masks    []mask          // parts of files to hide in snippets
	// sensitiveVars are the names of the variables declared sensitive.
	sensitiveVars map[string]bool
}

// newDecoder starts decoding a file whose body starts at file.
func newDecoder(file hcl.Range) *decoder {
	return &decoder{
		src:       newSources(file),
		varSizes:  map[string]float64{},
		hidden:    map[string]bool{},
		slots:     vocab.FixedSlots(),
		jsonSlots: map[int]int{},
	}
}

// body is the decoded content of one block, read attribute by attribute.
type body struct {
	d       *decoder
	name    string // block type as the user writes it, e.g. "retry"
	path    string // path of the block (see sources)
	def     hcl.Range
	content *hcl.BodyContent
	raw     hcl.Body
	schema  *hcl.BodySchema
}

// open decodes b against schema (unknown attributes and blocks become hcl's
// "Unsupported argument/block type" diagnostics with their "Did you mean")
// and records the block's DefRange under path.
func (d *decoder) open(name, path string, b hcl.Body, def hcl.Range, schema *hcl.BodySchema) *body {
	content, diags := b.Content(schema)
	d.hintUnsupported(schema, b, diags)
	d.diags = append(d.diags, diags...)
	if content == nil {
		content = &hcl.BodyContent{Attributes: hcl.Attributes{}}
	}
	d.src.blocks[path] = def
	return &body{d: d, name: name, path: path, def: def, content: content, raw: b, schema: schema}
}

// errorf adds an error diagnostic on subject.
func (d *decoder) errorf(subject *hcl.Range, summary, format string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  subject,
	})
}

// reportAt adds a diagnostic about the value at path: its subject is the
// value's source range (see sources.at) and, when the value refers to
// variables, its expression, so that the text writer shows "with var.NAME
// as VALUE".
func (d *decoder) reportAt(sev hcl.DiagnosticSeverity, path, summary, format string, args ...any) {
	diag := &hcl.Diagnostic{
		Severity: sev,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  d.src.at(path),
	}
	if e := d.src.expr(path); e != nil && len(e.Variables()) > 0 {
		// The text writer then shows "with var.NAME as VALUE".
		diag.Expression, diag.EvalContext = e, d.ctx
	}
	d.diags = append(d.diags, diag)
}

// blocks returns the nested blocks of type typ, at most max of them (0: no
// limit); extra ones are reported as duplicates.
func (b *body) blocks(typ string, max int) []*hcl.Block {
	var out []*hcl.Block
	for _, blk := range b.content.Blocks {
		if blk.Type != typ {
			continue
		}
		if max > 0 && len(out) >= max {
			first := out[0].DefRange
			b.d.errorf(blk.DefRange.Ptr(), fmt.Sprintf("Duplicate %s block", typ),
				"Only one %s block is allowed here; the first one is at %s.", typ, rangeLine(first))
			continue
		}
		out = append(out, blk)
	}
	return out
}

// one returns the single nested block of type typ, or nil. A missing
// required block is an error on the enclosing block (or the file's start
// for top-level blocks) whose detail is hint.
func (b *body) one(typ string, required bool, hint string) *hcl.Block {
	blks := b.blocks(typ, 1)
	if len(blks) == 1 {
		return blks[0]
	}
	if required && !b.misspelt(typ) {
		where := "The scenario"
		if b.path != "" {
			where = fmt.Sprintf("The %s block", b.name)
		}
		b.d.errorf(b.def.Ptr(), fmt.Sprintf("Missing %s block", typ), "%s needs a %s block: %s", where, typ, hint)
		b.d.src.failed[b.sub(typ)] = true
	}
	return nil
}

// misspelt reports whether the block's source has something hcl rejected
// that was probably meant as name: an unknown attribute or block with a
// close name, an attribute where a block belongs or the other way round, or
// a block with the wrong labels. hcl has already reported it, with its "Did
// you mean"; a "Missing ..." diagnostic on top would only be noise.
func (b *body) misspelt(name string) bool {
	sb, ok := b.raw.(*hclsyntax.Body)
	if !ok {
		return false
	}
	known := map[string]bool{}
	for _, a := range b.schema.Attributes {
		known[a.Name] = true
	}
	for _, h := range b.schema.Blocks {
		known[h.Type] = true
	}
	near := func(given string) bool {
		if given == name {
			// Same name: an attribute where a block belongs, or a block
			// with labels it must not have (hcl dropped it).
			return true
		}
		return !known[given] && closest(given, []string{name}) == name
	}
	for n := range sb.Attributes {
		if near(n) && !b.hasAttr(n) {
			return true
		}
	}
	for _, blk := range sb.Blocks {
		if near(blk.Type) && !b.hasBlock(blk) {
			return true
		}
	}
	return false
}

// hasAttr reports whether hcl accepted attribute n.
func (b *body) hasAttr(n string) bool {
	_, ok := b.content.Attributes[n]
	return ok
}

// hasBlock reports whether hcl accepted the block written at blk.
func (b *body) hasBlock(blk *hclsyntax.Block) bool {
	for _, c := range b.content.Blocks {
		if c.DefRange == blk.DefRange() {
			return true
		}
	}
	return false
}

// sub is the path of a child of this block.
func (b *body) sub(name string) string {
	if b.path == "" {
		return name
	}
	return b.path + "." + name
}

// require reports a missing required attribute on the block's DefRange;
// hint says what the value means, with an example.
func (b *body) require(name, hint string) {
	if b.d.src.has(b.sub(name)) || b.d.src.failed[b.sub(name)] {
		return
	}
	if b.misspelt(name) {
		b.d.src.failed[b.sub(name)] = true
		return
	}
	b.d.errorf(b.def.Ptr(), "Missing required argument",
		"The %s block needs %s: %s", b.name, name, hint)
	b.d.src.failed[b.sub(name)] = true
}

// eval evaluates attribute name and converts it to ty. ok is false when the
// attribute is absent, null, or failed (then a diagnostic was added).
func (b *body) eval(name string, ty cty.Type) (cty.Value, bool) {
	attr := b.content.Attributes[name]
	if attr == nil {
		return cty.NilVal, false
	}
	path := b.sub(name)
	if !b.d.checkLiterals(attr.Expr) || !b.d.checkRefs(attr.Expr) || !b.d.boundEval(attr.Expr, b.d.varSizes) {
		b.d.src.failed[path] = true
		return cty.NilVal, false
	}
	v, diags := attr.Expr.Value(b.d.ctx)
	b.d.diags = append(b.d.diags, diags...)
	if diags.HasErrors() {
		b.d.src.failed[path] = true
		return cty.NilVal, false
	}
	// A value computed from a sensitive variable is marked; the mark has
	// served (hcl's messages left the value out) and is dropped here, but
	// the value's texts are redacted from every diagnostic.
	v, secret := sensitivePaths(v)
	if len(secret) > 0 {
		b.d.src.sensitive[path] = true
		b.d.derive(v, secret)
		b.d.src.sensitiveKeys[path] = topKeys(secret)
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	b.d.src.attrs[path] = attr
	if msg := valueLimits(v); msg != "" {
		b.fail(name, "Value too large", "%s holds %s.", name, msg)
		return cty.NilVal, false
	}
	if hugeNumber(v) {
		b.fail(name, "Invalid number", "%s holds a number beyond ±1e308; no setting needs one that large or that small.", name)
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		b.d.errorf(attr.Expr.Range().Ptr(), "Invalid value", "The value of %s must be known when the scenario is read.", name)
		b.d.src.failed[path] = true
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		hint := ""
		if ty == cty.Number && v.Type() == cty.String {
			hint = numberHint(name, v.AsString(), b.d.src.sensitive[path])
		}
		b.d.diags = append(b.d.diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     "Incorrect attribute value type",
			Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.%s", name, err, hint),
			Subject:     attr.Expr.Range().Ptr(),
			Expression:  attr.Expr,
			EvalContext: b.d.ctx,
		})
		b.d.src.failed[path] = true
		return cty.NilVal, false
	}
	b.d.derive(cv, secret)
	return cv, true
}

// topKeys are the map keys or object attributes the paths start with.
func topKeys(paths []cty.Path) []string {
	var keys []string
	for _, p := range paths {
		if len(p) == 0 {
			continue
		}
		switch step := p[0].(type) {
		case cty.GetAttrStep:
			keys = append(keys, step.Name)
		case cty.IndexStep:
			if step.Key.Type() == cty.String && step.Key.IsKnown() && !step.Key.IsNull() {
				keys = append(keys, step.Key.AsString())
			}
		}
	}
	return keys
}

// str reads a string attribute; def when absent.
func (b *body) str(name, def string) string {
	v, ok := b.eval(name, cty.String)
	if !ok {
		return def
	}
	return v.AsString()
}

// num reads a number attribute; def when absent.
func (b *body) num(name string, def float64) float64 {
	v, ok := b.eval(name, cty.Number)
	if !ok {
		return def
	}
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) {
		b.fail(name, "Invalid number", "%s is out of range.", name)
		return def
	}
	return f
}

// optNum reads a number attribute; nil when absent.
func (b *body) optNum(name string) *float64 {
	if _, ok := b.content.Attributes[name]; !ok {
		return nil
	}
	f := b.num(name, math.NaN())
	if math.IsNaN(f) {
		return nil
	}
	return &f
}

// integer reads a whole-number attribute; def when absent.
func (b *body) integer(name string, def int) int {
	v, ok := b.eval(name, cty.Number)
	if !ok {
		return def
	}
	f, _ := v.AsBigFloat().Float64()
	if f != math.Trunc(f) {
		b.fail(name, "Invalid number", "%s must be a whole number, not %g.", name, f)
		return def
	}
	if f > math.MaxInt32 || f < math.MinInt32 {
		b.fail(name, "Invalid number", "%s = %g is out of range.", name, f)
		return def
	}
	return int(f)
}

// boolean reads a bool attribute; def when absent.
func (b *body) boolean(name string, def bool) bool {
	v, ok := b.eval(name, cty.Bool)
	if !ok {
		return def
	}
	return v.True()
}

// duration reads a Go duration string ("250ms", "1s", "3m"); def when absent.
func (b *body) duration(name string, def time.Duration) time.Duration {
	v, ok := b.eval(name, cty.String)
	if !ok {
		return def
	}
	s := v.AsString()
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err == nil && b.d.src.sensitive[b.sub(name)] {
		b.d.redacted = append(b.d.redacted, d.String())
	}
	if err == nil && d > MaxDuration {
		b.fail(name, "Value out of range",
			"%s = %q is longer than 7 days (%s), the longest duration a scenario may give: no trigger test runs that long.", name, s, MaxDuration)
		return def
	}
	if err == nil {
		return d
	}
	hint := ""
	if !b.d.src.sensitive[b.sub(name)] {
		hint = durationHint(s)
	}
	b.fail(name, "Invalid duration",
		"%s = %q is not a duration. Durations are Go duration strings: a number and a unit (ns, us, ms, s, m, h), such as \"250ms\", \"1s\", \"3m\" or \"1h30m\".%s",
		name, s, hint)
	return def
}

// strings reads a list of strings; def when absent. Element ranges are
// recorded as path[i] when the list is written literally.
func (b *body) strList(name string, def []string) []string {
	v, ok := b.eval(name, cty.List(cty.String))
	if !ok {
		return def
	}
	out := make([]string, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			b.fail(name, "Invalid value", "The elements of %s must not be null.", name)
			return def
		}
		out = append(out, ev.AsString())
	}
	if tup, ok := b.content.Attributes[name].Expr.(*hclsyntax.TupleConsExpr); ok && len(tup.Exprs) == len(out) {
		for i, e := range tup.Exprs {
			b.d.src.elems[fmt.Sprintf("%s[%d]", b.sub(name), i)] = e.Range()
		}
	}
	return out
}

// strMap reads a map of strings; nil when absent. Key ranges are recorded
// as path[KEY] when the map is written literally.
func (b *body) strMap(name string) map[string]string {
	v, ok := b.eval(name, cty.Map(cty.String))
	if !ok {
		return nil
	}
	out := make(map[string]string, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		if ev.IsNull() {
			b.fail(name, "Invalid value", "The values of %s must not be null.", name)
			return nil
		}
		out[k.AsString()] = ev.AsString()
	}
	if obj, ok := b.content.Attributes[name].Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range obj.Items {
			kv, diags := item.KeyExpr.Value(nil)
			if diags.HasErrors() || kv.IsNull() || !kv.IsKnown() {
				continue
			}
			if ks, err := convert.Convert(kv, cty.String); err == nil {
				b.d.src.elems[fmt.Sprintf("%s[%s]", b.sub(name), ks.AsString())] = item.KeyExpr.Range()
			}
		}
	}
	return out
}

// fail reports a bad value of attribute name on its range and marks it failed.
func (b *body) fail(name, summary, format string, args ...any) {
	path := b.sub(name)
	var expr hcl.Expression
	subject := b.def.Ptr()
	if a := b.content.Attributes[name]; a != nil {
		expr, subject = a.Expr, a.Expr.Range().Ptr()
	}
	b.d.diags = append(b.d.diags, &hcl.Diagnostic{
		Severity:    hcl.DiagError,
		Summary:     summary,
		Detail:      fmt.Sprintf(format, args...),
		Subject:     subject,
		Expression:  expr,
		EvalContext: b.d.ctx,
	})
	b.d.src.failed[path] = true
}

// checkRefs reports every reference in expr that is not var.NAME of a
// declared variable, with the closest declared name as a suggestion. hcl
// itself says only "This object does not have an attribute named ...".
func (d *decoder) checkRefs(expr hcl.Expression) bool {
	ok := true
	for _, t := range expr.Variables() {
		root := t.RootName()
		if root == "request" || root == "random" {
			ok = d.checkPerRequestRef(t) && ok
			continue
		}
		if root == "data" {
			ok = d.checkDataRef(t) && ok
			continue
		}
		if root != "var" {
			d.errorf(t.SourceRange().Ptr(), "Unknown reference",
				"There is no variable named %q. A scenario can refer only to its declared variables, as var.NAME.", root)
			ok = false
			continue
		}
		if len(t) < 2 {
			d.errorf(t.SourceRange().Ptr(), "Invalid reference",
				"Refer to one variable as var.NAME, not to var itself.")
			ok = false
			continue
		}
		attr, isAttr := t[1].(hcl.TraverseAttr)
		if !isAttr {
			d.errorf(t.SourceRange().Ptr(), "Invalid reference", "Refer to a variable as var.NAME.")
			ok = false
			continue
		}
		if d.src.failed["var."+attr.Name] {
			ok = false // its problem is already reported
			continue
		}
		if !contains(d.declared, attr.Name) {
			detail := fmt.Sprintf("There is no variable %q: declare it with a variable %q block.", attr.Name, attr.Name)
			if s := closest(attr.Name, d.declared); s != "" {
				detail = fmt.Sprintf("There is no variable %q. Did you mean %q?", attr.Name, s)
			}
			d.errorf(t.SourceRange().Ptr(), "Undeclared variable", "%s", detail)
			ok = false
		}
	}
	return ok
}

// hugeNumber reports whether v holds a number whose magnitude is beyond
// float64 (or a nonzero one below it). Such numbers are legal HCL, but
// printing them in decimal (big.Float.Text, cty's number-to-string
// conversion) takes time that grows with the exponent: a few bytes of
// source could stall Parse for minutes.
func hugeNumber(v cty.Value) bool {
	huge := false
	_ = cty.Walk(v, func(_ cty.Path, e cty.Value) (bool, error) {
		if e.IsKnown() && !e.IsNull() && e.Type() == cty.Number {
			bf := e.AsBigFloat()
			if bf.IsInf() {
				huge = true
			} else if bf.Sign() != 0 {
				if exp := bf.MantExp(nil); exp > 1100 || exp < -1100 {
					huge = true
				}
			}
		}
		return !huge, nil
	})
	return huge
}

// checkLiterals reports number literals in expr beyond float64's range
// before expr is evaluated: evaluating "${1e100000000}" alone would take
// minutes (see hugeNumber).
func (d *decoder) checkLiterals(expr hcl.Expression) bool {
	se, ok := expr.(hclsyntax.Expression)
	if !ok {
		return true
	}
	good := true
	hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		if lit, ok := n.(*hclsyntax.LiteralValueExpr); ok && hugeNumber(lit.Val) {
			d.errorf(lit.SrcRange.Ptr(), "Invalid number", "Numbers must be within ±1e308; no setting needs one that large or that small.")
			good = false
		}
		return nil
	})
	return good
}

// rangeLine renders a range as "file:line:col".
func rangeLine(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// perRequestNames are the per-request values a traversal may name.
var perRequestNames = []string{"request.id", "request.seq", "random.uuid"}

// checkPerRequestRef checks a reference to a per-request value
// (request.id, request.seq, random.uuid): known, and in the target's url,
// headers or body, where each logical request gets its own.
func (d *decoder) checkPerRequestRef(t hcl.Traversal) bool {
	name := t.RootName()
	if len(t) == 2 {
		if a, ok := t[1].(hcl.TraverseAttr); ok {
			name += "." + a.Name
		}
	}
	names := perRequestNames
	switch {
	case name == "random.int":
		d.errorf(t.SourceRange().Ptr(), "Unknown reference", "A random whole number is a function call: random::int(LO, HI).")
		return false
	case !contains(names, name):
		detail := fmt.Sprintf("%s is not a per-request value. Use %s, or random::int(LO, HI).", name, quoteList(names))
		if s := closest(name, names); s != "" {
			detail = fmt.Sprintf("%s is not a per-request value. Did you mean %s?", name, s)
		}
		d.errorf(t.SourceRange().Ptr(), "Unknown reference", "%s", detail)
		return false
	case !d.perRequest:
		d.errorf(t.SourceRange().Ptr(), "Per-request value out of place",
			"%s is evaluated once per logical request: only a target's (or its requests') url, headers and body may use it.", name)
		return false
	}
	return true
}

// withPerRequest evaluates f with the per-request values in scope: only
// a target's (or its requests') url, headers and body are evaluated so.
func (d *decoder) withPerRequest(f func()) {
	for k, v := range perRequestValues() {
		d.ctx.Variables[k] = v
	}
	d.ctx.Variables["data"] = d.dataValues()
	d.perRequest = true
	defer func() {
		d.perRequest = false
		delete(d.ctx.Variables, "request")
		delete(d.ctx.Variables, "random")
		delete(d.ctx.Variables, "data")
	}()
	f()
}

// perRequestValues are the per-request values' markers as the target's
// expressions see them (vocab.PerRequest.Marker).
func perRequestValues() map[string]cty.Value {
	return map[string]cty.Value{
		"request": cty.ObjectVal(map[string]cty.Value{
			"id":  cty.StringVal(vocab.PerRequestID.Marker()),
			"seq": cty.StringVal(vocab.PerRequestSeq.Marker()),
		}),
		"random": cty.ObjectVal(map[string]cty.Value{"uuid": cty.StringVal(vocab.PerRandomUUID.Marker())}),
	}
}
