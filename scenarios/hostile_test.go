package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"pgregory.net/rapid"
)

// TestHostileInputs: inputs built to exhaust the parser or the evaluator
// are refused, with the diagnostic that names the limit, before they can
// (a Go stack overflow kills the process; a regression here crashes the
// test binary or shows up as a test timeout).
func TestHostileInputs(t *testing.T) {
	inService := func(expr string) string { return minimal + "service { capacity = " + expr + " }\n" }
	withList := func(n int, attr string) string {
		return "variable \"l\" { default = [" + strings.Repeat("1, ", n) + "] }\n" +
			strings.Replace(minimal, `scenario "min" {}`, `scenario "min" { description = `+attr+` }`, 1) + "service { capacity = 1 }\n"
	}
	tests := []struct {
		name    string
		src     string
		vars    map[string]string
		summary string
		at      string // "line:col" of the diagnostic; "" to skip
	}{
		// Over 1 MiB: refused before anything reads it.
		{"large file", minimal + "# " + strings.Repeat("x", MaxFileBytes) + "\n", nil, "Scenario file too large", "1:1"},
		// 60,000 "[" in 120 KB overflowed hcl's parser.
		{"brackets", inService(strings.Repeat("[", 60000)), nil, "Nesting too deep", "15:85"},
		// So did interpolations in interpolations.
		{"interpolations", inService(strings.Repeat(`"${`, 100)), nil, "Nesting too deep", "15:212"},
		// And template directives.
		{"directives", inService(`"` + strings.Repeat("%{if true}", 100) + `"`), nil, "Nesting too deep", ""},
		// A million "-" before a number overflowed the parser, a long
		// chain of "+" the evaluator: each operator is a level.
		{"unary chain", inService(strings.Repeat("-", 1000) + "1"), nil, "Expression too long", "15:54"},
		{"binary chain", inService(strings.Repeat("1+", 1000) + "1"), nil, "Expression too long", ""},
		{"ternary chain", inService(strings.Repeat("true ? 1 : ", 1000) + "1"), nil, "Expression too long", ""},
		{"splat chain", inService("[1]" + strings.Repeat("[*]", 1000)), nil, "Expression too long", ""},
		// A chain hidden in a {for} (newlines do not end its expression).
		{"for object chain", inService("{for x in [1] : x => 1\n" + strings.Repeat("+ 1\n", 100) + "}"), nil, "Expression too long", ""},
		// Too many tokens to lex and parse quickly.
		{"tokens", minimal + "service { capacity = 1 }\n" + strings.Repeat("# a b c d e f g\n", 5000), nil, "Too many tokens", ""},
		// Nested %{for}: six levels took 12 s and 95 MB.
		{"for bomb", withList(10, `"%{for a in var.l}%{for b in var.l}%{for c in var.l}x%{endfor}%{endfor}%{endfor}"`), nil, "for nested too deep", ""},
		// Two levels are allowed, but not over long lists.
		{"for square", withList(1000, `"%{for a in var.l}%{for b in var.l}x%{endfor}%{endfor}"`), nil, "Expression too costly", ""},
		{"for expr square", withList(1000, `join("", [for a in var.l: [for b in var.l: b]])`), nil, "Expression too costly", ""},
		// The same, with the list given on the command line.
		{"for override", withList(1, `"%{for a in var.l}%{for b in var.l}x%{endfor}%{endfor}"`),
			map[string]string{"l": "[" + strings.Repeat("1,", 1000) + "]"}, "Expression too costly", ""},
		// A literal list long enough to make conversion slow (quadratic).
		{"long list", strings.Replace(minimal, `["127.0.0.1"]`, "["+strings.Repeat(`"a", `, 2000)+"]", 1) + "service { capacity = 1 }\n", nil, "Too many elements", ""},
		// A long string made by a template.
		{"long string", withList(1, `"${"`+strings.Repeat("x", 40000)+`"}${"`+strings.Repeat("x", 40000)+`"}"`), nil, "Value too large", ""},
		// A --var value parsed as HCL is checked as the file is.
		{"override nesting", withList(1, `"x"`), map[string]string{"l": strings.Repeat("[", 100)}, "Nesting too deep", ""},
		{"override length", strings.Replace(minimal, `scenario "min" {}`, "variable \"s\" { default = \"\" }\nscenario \"min\" { description = var.s }", 1) + "service { capacity = 1 }\n",
			map[string]string{"s": strings.Repeat("x", MaxStringBytes+1)}, "Value too large", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("h.hcl", []byte(tt.src), tt.vars)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			checkDiagnostics(t, e)
			for _, d := range e.Diagnostics {
				if d.Summary != tt.summary {
					continue
				}
				if at := fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column); tt.at != "" && at != tt.at {
					t.Errorf("%s at %s, want %s", d.Summary, at, tt.at)
				}
				if err := e.Render(discard{}, 100, false); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("no %q in %v", tt.summary, e.Diagnostics)
		})
	}
}

// TestNestingScan: what the scan before parsing counts as nesting, and
// what it does not.
func TestNestingScan(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1)
	tests := []struct {
		name string
		src  string
		want string // summary of the refusal; "" when accepted
	}{
		// Brackets in strings, heredocs and comments are text.
		{"string", "a = \"" + deep + "\"\n", ""},
		{"heredoc", "a = <<EOT\n" + deep + "\nEOT\n", ""},
		{"comments", "# " + deep + "\n// " + deep + "\n/* " + deep + " */\n", ""},
		// A closing bracket in a string does not close one in code.
		{"closer in string", "a = " + strings.Repeat(`[ "]", `, MaxNesting+1) + "\n", "Nesting too deep"},
		// Exactly the limit is allowed.
		{"limit", "a = " + strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting) + "\n", ""},
		{"beyond", "a = " + deep + "\n", "Nesting too deep"},
		// Interpolations and directives nest.
		{"interpolation", "a = " + strings.Repeat(`"${`, MaxNesting+1) + "\n", "Nesting too deep"},
		{"directives", "a = \"" + strings.Repeat("%{ if true }", MaxNesting+1) + "\"\n", "Nesting too deep"},
		{"closed directives", "a = \"" + strings.Repeat("%{ if true }x%{ endif }", MaxNesting+1) + "\"\n", ""},
		// A chain ends at a separator: a comma, an "=", a newline in a
		// body or object.
		{"chain", "a = " + strings.Repeat("1 + ", MaxChain) + "1\n", "Expression too long"},
		{"commas", "a = [" + strings.Repeat("1 + 1, ", 100) + "]\n", ""},
		{"lines", strings.Repeat("a = 1 + 1\n", 100), ""},
		{"object lines", "a = {\n" + strings.Repeat("b = 1 + 1\n", 100) + "}\n", ""},
		{"block lines", "b {\n" + strings.Repeat("c = 1 + 1\n", 100) + "}\n", ""},
		// A newline does not end an expression in brackets.
		{"paren lines", "a = (\n" + strings.Repeat("1 +\n", MaxChain) + "1)\n", "Expression too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if d := prescan("n.hcl", []byte(tt.src), false); d != nil {
				got = d.Summary
			}
			eq(t, "refusal", got, tt.want)
		})
	}
}

// TestCountTokens: the count is an upper bound on hcl's tokens.
func TestCountTokens(t *testing.T) {
	for _, src := range corpus(t) {
		n, _ := countTokens(src)
		if lexed := lexCount(src); n < lexed {
			t.Errorf("countTokens = %d < %d tokens lexed:\n%s", n, lexed, src)
		}
	}
	for _, src := range []string{`"   "`, "1x 2y", "€€€", "a\r\nb", `"\"\\"`, "<<EOT\n  \nEOT\n"} {
		if n, _ := countTokens([]byte(src)); n < lexCount([]byte(src)) {
			t.Errorf("countTokens(%q) = %d < %d tokens lexed", src, n, lexCount([]byte(src)))
		}
	}
	// Any bytes at all.
	rapid.Check(t, func(t *rapid.T) {
		src := rapid.SliceOf(rapid.SampledFrom([]byte("ab1e \t\r\n\"'$%{}[]()#/*<-~\\=.,:?!\x80\xc3\xa9"))).Draw(t, "src")
		if n, _ := countTokens(src); n < lexCount(src) {
			t.Fatalf("countTokens(%q) = %d < %d tokens lexed", src, n, lexCount(src))
		}
	})
}

// lexCount is the number of tokens hcl's lexer makes of src, without EOF.
func lexCount(src []byte) int {
	tokens, _ := hclsyntax.LexConfig(src, "x", hcl.InitialPos)
	return len(tokens) - 1
}

// TestLoadLargeFile: Load refuses a file over MaxFileBytes without reading
// all of it, and names its size.
func TestLoadLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.hcl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(minimal); err != nil {
		t.Fatal(err)
	}
	// A sparse file of 1 GiB: reading it all would take a while.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Load(path, nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	checkDiagnostics(t, e)
	d := e.Diagnostics[0]
	eq(t, "summary", d.Summary, "Scenario file too large")
	if !strings.Contains(d.Detail, "The file is 1.0 GiB (1073741824 bytes)") {
		t.Errorf("detail = %q", d.Detail)
	}
}
