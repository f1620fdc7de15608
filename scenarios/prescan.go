package scenarios

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// The checks a source passes before hclsyntax parses it. hcl's parser and
// evaluator recurse once per level of nesting and once per operator: 60,000
// "[" in 120 KB, or a million "-" before a number, overflow the stack and
// crash the process (a Go stack overflow cannot be recovered). Lexing and
// parsing cost about a microsecond and half a kilobyte per token. So a
// source is refused, with a diagnostic at the first offending place, when
// it is too big (MaxFileBytes), has too many tokens (MaxTokens), nests too
// deeply (MaxNesting) or chains too many tokens at one level (MaxChain).

// prescan checks a scenario file (expr false) or a --var value parsed as
// an HCL expression (expr true). It returns nil when src may be parsed.
func prescan(filename string, src []byte, expr bool) *hcl.Diagnostic {
	if !expr && len(src) > MaxFileBytes {
		return tooLarge(filename, src, int64(len(src)))
	}
	if n, at := countTokens(src); n > MaxTokens {
		what := "The file"
		if expr {
			what = "The value"
		}
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Too many tokens",
			Detail: fmt.Sprintf("%s has more than %d tokens (words, numbers, symbols and runs of spaces); the limit is reached here. A scenario needs a few thousand: check that this is the file or value you meant.",
				what, MaxTokens),
			Subject: posRange(filename, src, at, at).Ptr(),
		}
	}
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	return nesting(tokens, expr)
}

// tooLarge is the diagnostic for a file of size bytes, more than
// MaxFileBytes; head is (the start of) its content.
func tooLarge(filename string, head []byte, size int64) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Scenario file too large",
		Detail: fmt.Sprintf("The file is %s (%d bytes); a scenario file may be at most 1 MiB (%d bytes). A scenario is a few kilobytes: check that this is the file you meant.",
			sizeText(size), size, MaxFileBytes),
		Subject: posRange(filename, head, 0, 0).Ptr(),
	}
}

// countTokens returns an upper bound on the number of tokens hcl's lexer
// makes of src, without lexing it: one per run of letters, digits and
// underscores (two when the run starts with a digit and holds a letter:
// a number, then a name), one per run of spaces and tabs (in a string,
// such a run is a token of its own), one per other byte. at is the offset where the
// count first exceeds MaxTokens, or len(src).
func countTokens(src []byte) (n, at int) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case isWordByte(c):
			j, letter := i, false
			for j < len(src) && isWordByte(src[j]) {
				letter = letter || (src[j] > '9' || src[j] < '0')
				j++
			}
			n++
			if c >= '0' && c <= '9' && letter {
				n++
			}
			i = j
		case c == ' ' || c == '\t':
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				i++
			}
			n++
		default:
			n++
			i++
		}
		if n > MaxTokens {
			return n, i
		}
	}
	return n, len(src)
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// level is one open bracket, interpolation or template during the scan.
type level struct {
	open     hclsyntax.TokenType // the opening token
	template bool                // a quoted or heredoc template: its parts do not nest
	newlines bool                // a newline separates items (bodies and object constructors)
	chain    int                 // tokens since the last separator
	dirs     int                 // open %{if} and %{for} directives (templates only)
}

// closes maps each closing token to the opening tokens it closes.
var closes = map[hclsyntax.TokenType][]hclsyntax.TokenType{
	hclsyntax.TokenCParen:         {hclsyntax.TokenOParen},
	hclsyntax.TokenCBrack:         {hclsyntax.TokenOBrack},
	hclsyntax.TokenCBrace:         {hclsyntax.TokenOBrace},
	hclsyntax.TokenTemplateSeqEnd: {hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl},
	hclsyntax.TokenCQuote:         {hclsyntax.TokenOQuote},
	hclsyntax.TokenCHeredoc:       {hclsyntax.TokenOHeredoc},
}

// nesting walks the tokens as hcl's parser will see them and returns a
// diagnostic at the first token that opens a level beyond MaxNesting, or
// that is the (MaxChain+1)th in a row at its level. A closing token that
// does not match the innermost open level is a syntax error hcl reports;
// it closes nothing here, so the depth counted is never less than the
// parser's.
func nesting(tokens hclsyntax.Tokens, expr bool) *hcl.Diagnostic {
	stack := []*level{{newlines: !expr}}
	depth := 0
	tooDeep := func(t hclsyntax.Token) *hcl.Diagnostic {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Nesting too deep",
			Detail: fmt.Sprintf("This opens level %d of brackets, interpolations and template directives; a scenario may nest at most %d levels. Flatten the expression.",
				depth, MaxNesting),
			Subject: t.Range.Ptr(),
		}
	}
	for i, t := range tokens {
		top := stack[len(stack)-1]
		switch t.Type {
		case hclsyntax.TokenComment, hclsyntax.TokenEOF:
			continue
		case hclsyntax.TokenNewline:
			if top.newlines {
				top.chain = 0
			}
			continue
		case hclsyntax.TokenComma, hclsyntax.TokenEqual:
			top.chain = 0
			continue
		}
		if want, ok := closes[t.Type]; ok {
			if slices.Contains(want, top.open) && len(stack) > 1 {
				stack = stack[:len(stack)-1]
				if top.template {
					depth -= top.dirs
				} else {
					depth--
				}
			}
			continue
		}
		if !top.template {
			top.chain++
			if top.chain > MaxChain {
				return &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Expression too long",
					Detail: fmt.Sprintf("This is token %d in a row of one expression without brackets or separators; an expression may have at most %d. Split it, or use brackets.",
						top.chain, MaxChain),
					Subject: t.Range.Ptr(),
				}
			}
		}
		switch t.Type {
		case hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
			stack = append(stack, &level{open: t.Type, template: true})
		case hclsyntax.TokenOParen, hclsyntax.TokenOBrack, hclsyntax.TokenTemplateInterp:
			stack = append(stack, &level{open: t.Type})
			if depth++; depth > MaxNesting {
				return tooDeep(t)
			}
		case hclsyntax.TokenOBrace:
			// An object constructor or a body is newline-sensitive; a
			// {for ...} expression is not.
			stack = append(stack, &level{open: t.Type, newlines: nextWord(tokens, i) != "for"})
			if depth++; depth > MaxNesting {
				return tooDeep(t)
			}
		case hclsyntax.TokenTemplateControl:
			stack = append(stack, &level{open: t.Type})
			if depth++; depth > MaxNesting {
				return tooDeep(t)
			}
			// %{if} and %{for} open a directive until %{endif} or %{endfor}.
			if top.template {
				switch nextWord(tokens, i) {
				case "if", "for":
					top.dirs++
					if depth++; depth > MaxNesting {
						return tooDeep(t)
					}
				case "endif", "endfor":
					if top.dirs > 0 {
						top.dirs--
						depth--
					}
				}
			}
		}
	}
	return nil
}

// nextWord returns the identifier that follows tokens[i], skipping
// comments and newlines as hcl's parser does when it looks for "for", or
// "" when the next token is not an identifier. (A strip marker "~" is part
// of the token before.)
func nextWord(tokens hclsyntax.Tokens, i int) string {
	for _, t := range tokens[i+1:] {
		switch t.Type {
		case hclsyntax.TokenComment, hclsyntax.TokenNewline:
			continue
		case hclsyntax.TokenIdent:
			return string(t.Bytes)
		}
		return ""
	}
	return ""
}

// posRange returns the range of src[start:end] in file filename, with the
// line and column (in runes) counted from the start of src.
func posRange(filename string, src []byte, start, end int) hcl.Range {
	pos := func(off int) hcl.Pos {
		p := hcl.InitialPos
		for i := 0; i < off; {
			if src[i] == '\n' {
				p.Line, p.Column = p.Line+1, 1
				i++
				continue
			}
			_, size := utf8.DecodeRune(src[i:])
			p.Column++
			i += size
		}
		p.Byte = off
		return p
	}
	return hcl.Range{Filename: filename, Start: pos(start), End: pos(end)}
}

// sizeText renders a byte count as "2.0 GiB", "1.5 MiB", "12.0 KiB" or
// "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
