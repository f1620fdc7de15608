package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		// Printing text is left alone, non-ASCII letters included.
		{"plain", "kubectl scale deploy/checkout --replicas=2", "kubectl scale deploy/checkout --replicas=2"},
		{"letters", "Größe über", "Größe über"},
		// The audit's command: a carriage return and an erase-line
		// sequence that made the terminal show another command.
		{"cr and erase line", "rm -rf /tmp/x\r\x1b[2Kecho harmless", `rm -rf /tmp/x\r\x1b[2Kecho harmless`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		// C1 controls: U+009B is a one-character CSI on some terminals.
		{"c1 csi", "a\u009b2Kb", `a\x9b2Kb`},
		// A right-to-left override reorders what follows on screen.
		{"bidi override", "safe\u202egnp.exe", `safe\u202egnp.exe`},
		{"zero width", "a\u200bb", `a\u200bb`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid utf-8", "a\xffb", `a\xffb`},
		// Characters that show as blank or as nothing, so that a command
		// could look like another one (the review printed these raw).
		{"no-break space", "rm\u00a0-rf", `rm\u00a0-rf`},
		{"grapheme joiner", "a\u034fb", `a\u034fb`},
		{"hangul fillers", "a\u115f\u1160\u3164\uffa0b", `a\u115f\u1160\u3164\uffa0b`},
		{"variation selector", "a\ufe0fb", `a\ufe0fb`},
		{"braille blank", "a\u2800b", `a\u2800b`},
		{"ideographic space", "a\u3000b", `a\u3000b`},
		// A backslash is doubled once anything is escaped, and alone.
		{"backslash", `a\nb`, `a\\nb`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.want {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// No output of Line holds a rune that does not print as itself.
func TestLineOutputPrints(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	all.WriteString("\xff\xfe\U0001F600\U000E0001")
	out := Line(all.String())
	for _, r := range out {
		if r != ' ' && (!unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) || unicode.IsControl(r)) {
			t.Fatalf("Line's output holds %U", r)
		}
	}
	if !utf8.ValidString(out) {
		t.Fatal("Line's output is not valid UTF-8")
	}
}

func TestArg(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"word", "kubectl", "kubectl"},
		{"flag", "--replicas=2", "--replicas=2"},
		{"empty", "", "''"},
		{"space", "a b", "'a b'"},
		{"quote", "it's", `'it'\''s'`},
		{"shell chars", "$(id);`x`", "'$(id);`x`'"},
		{"control", "a\rb", `$'a\rb'`},
		{"control and quote", "a'\x1b", `$'a\'\x1b'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Arg(tc.in); got != tc.want {
				t.Errorf("Arg(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got, want := Argv([]string{"sh", "-c", "echo hi\r\x1b[2K"}), `sh -c $'echo hi\r\x1b[2K'`; got != want {
		t.Errorf("Argv = %q, want %q", got, want)
	}
}
