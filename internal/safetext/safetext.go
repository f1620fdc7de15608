// Package safetext renders text that came from a scenario (a command, a
// path, a URL, a header) for a terminal or a log so that what is shown is
// what it says: control characters, escape sequences and Unicode format
// characters (bidirectional overrides, zero-width marks) are written as
// escapes instead of acting on the terminal. A command line containing
// "\r" and "ESC[2K" used to make a confirmation prompt show a harmless
// command over the one that would run (docs/safety.md, "Running a
// scenario you did not write").
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s with every character that would not print as itself escaped:
// C0 and C1 control characters and DEL as \xHH (tab, newline and carriage
// return as \t, \n, \r), Unicode format characters (category Cf: U+202E
// and the other bidirectional controls, zero-width joiners) and other
// non-printing runes as \uHHHH, and invalid UTF-8 bytes as \xHH. A
// backslash is doubled, so an escape in the output is never ambiguous.
func Line(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case !printable(r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Arg is one argument of a command line as a reader can copy it to a
// POSIX shell: unchanged when it holds only characters no shell treats
// specially, else in single quotes (a quote inside closes the quotes,
// is escaped with a backslash and reopens them); a string
// with characters Line escapes is written as $'…' with those escapes, so
// the shown line still means the same argument.
func Arg(s string) string {
	if s == "" {
		return "''"
	}
	if !plain(s) {
		esc := strings.ReplaceAll(Line(s), `'`, `\'`)
		return "$'" + esc + "'"
	}
	if strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Argv is a command's argv as one line, each argument as Arg writes it.
func Argv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Arg(a)
	}
	return strings.Join(parts, " ")
}

// plain reports whether s prints as itself: valid UTF-8 holding only
// printing characters and spaces, and no backslash.
func plain(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\\' || (r != ' ' && !printable(r)) {
			return false
		}
		i += size
	}
	return true
}

// printable reports whether r prints as itself on a terminal: a graphic
// character that is neither a format character (Cf) nor a control, nor
// one that shows as blank or nothing and so could pass for another
// character or for none: a space other than U+0020 (category Zs: the
// no-break space, the ideographic space), a default-ignorable code point
// (U+034F, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0), a
// variation selector, or the blank Braille pattern U+2800.
func printable(r rune) bool {
	switch {
	case !unicode.IsGraphic(r), unicode.Is(unicode.Cf, r), unicode.IsControl(r),
		r == '\u2028', r == '\u2029', r == '\u2800',
		r != ' ' && unicode.Is(unicode.Zs, r),
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r),
		unicode.Is(unicode.Variation_Selector, r):
		return false
	}
	return true
}

// special reports whether r means something to a POSIX shell outside
// quotes.
func special(r rune) bool {
	return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ',' || r == ':' || r == '=' || r == '+' || r == '@' || r == '%' ||
		('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || r > 0x7f)
}
