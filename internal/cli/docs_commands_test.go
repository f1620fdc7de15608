package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every trigger command line the documentation shows runs: in README.md,
// docs/*.md, the Makefile and every text file under examples/ (code
// blocks, `trigger …` code spans, shell lines of workflows and scripts),
// the subcommand exists and so does every flag; a line with nothing left
// to the reader (no placeholder, no [optional] part, no …) also parses
// and has the number of arguments its command takes. A renamed or
// misspelt flag would otherwise rot the docs silently.
func TestDocsCallRealCommands(t *testing.T) {
	lines := docCommandLines(t, "../..")
	if len(lines) < 50 {
		t.Fatalf("found %d trigger command lines in the docs; want the README's, design.md's and the examples'", len(lines))
	}
	for _, l := range lines {
		if testing.Verbose() {
			t.Logf("%s:%d: exact %v: %s", l.file, l.line, l.exact, l.text)
		}
		if err := checkCommandLine(l.text, l.exact); err != nil {
			t.Errorf("%s:%d: %q: %v", l.file, l.line, l.text, err)
		}
	}
}

// The checker itself catches what it is for: a flag that does not exist,
// a subcommand that does not, arguments a command does not take.
func TestCheckCommandLineCatches(t *testing.T) {
	for _, c := range []struct {
		line  string
		exact bool
		ok    bool
	}{
		{"trigger run --metrics-addr 127.0.0.1:9464 scenarios/recovers.hcl", true, true},
		{"trigger run --metrics-listen 127.0.0.1:9464 scenarios/recovers.hcl", true, false},
		{"trigger run --metrics-listen 127.0.0.1:9464 …", false, false},
		{"trigger plan [--json] [--var NAME=VALUE] [--nope] SCENARIO.hcl", false, false},
		{"trigger plan [--json] [--var NAME=VALUE] SCENARIO.hcl", false, true},
		{"trigger replan scenarios/recovers.hcl", true, false},
		{"trigger plan a.hcl b.hcl", true, false},
		{"trigger report", false, true},
		{"trigger import har|vegeta FILE [--out SCENARIO.hcl]", false, true},
		{"trigger demo set-capacty --addr 127.0.0.1:1 --factor 0.25", true, false},
		{"trigger demo set-capacity --addr 127.0.0.1:1 --factor 0.25", true, true},
		{"trigger COMMAND --help", false, true},
		{"trigger --version", true, true},
		{"trigger compare out/main out/pr --markdown", true, true},
		{"trigger simulate --runs ten x.hcl", true, false},
	} {
		err := checkCommandLine(c.line, c.exact)
		if (err == nil) != c.ok {
			t.Errorf("%q: error %v, want ok %v", c.line, err, c.ok)
		}
	}
}

// A flag the prose names on its own (`--metrics-addr`) is a flag of some
// trigger command.
func TestDocsNameRealFlags(t *testing.T) {
	known := map[string]bool{"help": true, "version": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(io.Discard, io.Discard))
	flagSpan := regexp.MustCompile("`--([a-z][a-z0-9-]*)[^`]*`")
	n := 0
	for file, src := range docSources(t, "../..") {
		for _, m := range flagSpan.FindAllStringSubmatch(src, -1) {
			n++
			if !known[m[1]] {
				t.Errorf("%s:%d: %s names --%s, which no trigger command has", file, lineOf(src, m[0]), m[0], m[1])
			}
		}
	}
	if n < 30 {
		t.Errorf("found %d flags named in the docs; want the README's and design.md's", n)
	}
}

// docLine is one trigger command line found in the docs.
type docLine struct {
	file  string
	line  int
	text  string // from "trigger" on, continuations joined
	exact bool   // a code line meant to be run as it is (not a span, not a synopsis)
}

// commandStart matches a shell line that runs trigger: "trigger …",
// "./bin/trigger …", after an optional prompt or YAML "run:".
var commandStart = regexp.MustCompile(`^(?:\$ |run: )?(?:\./)?(?:bin/)?trigger(?:\s|$)`)

// codeSpan matches a `trigger …` code span (it may wrap onto the next line).
var codeSpan = regexp.MustCompile("`((?:\\./)?(?:bin/)?trigger [^`]+)`")

// docCommandLines finds the trigger command lines of the docs under root.
func docCommandLines(t *testing.T, root string) []docLine {
	t.Helper()
	var out []docLine
	for f, src := range docSources(t, root) {
		out = append(out, commandLinesOf(f, src)...)
	}
	return out
}

// docSources are the texts of the documentation under root by path:
// README.md, the Makefile, docs/*.md and the text files under examples/.
func docSources(t *testing.T, root string) map[string]string {
	t.Helper()
	files := []string{"README.md", "Makefile"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, strings.TrimPrefix(d, root+string(filepath.Separator)))
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".md", ".yml", ".yaml", ".sh", ".hcl", ".go", "":
			if !d.IsDir() && (filepath.Ext(path) != "" || d.Name() == "Makefile" || d.Name() == "Dockerfile") {
				rel, _ := filepath.Rel(root, path)
				files = append(files, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(src)
	}
	return out
}

// commandLinesOf finds the trigger command lines of one file: in Markdown,
// those of code blocks and the code spans of the prose; elsewhere, shell
// lines that start with trigger and the code spans of comments.
func commandLinesOf(file, src string) []docLine {
	var out []docLine
	lines := strings.Split(src, "\n")
	markdown := strings.HasSuffix(file, ".md")
	inFence := !markdown // outside Markdown every line is "code"
	var prose strings.Builder
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		trimmed := strings.TrimSpace(raw)
		if markdown && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			inFence = !inFence
			continue
		}
		if !inFence || !markdown {
			prose.WriteString(raw)
			prose.WriteByte('\n')
		}
		if !inFence || !commandStart.MatchString(trimmed) {
			continue
		}
		start := i
		text := trimmed
		prompt := strings.HasPrefix(text, "$ ")
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		for i+1 < len(lines) {
			next := lines[i+1]
			nextIndent := len(next) - len(strings.TrimLeft(next, " \t"))
			switch {
			case strings.HasSuffix(text, `\`):
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(next)
			case markdown && !prompt && strings.TrimSpace(next) != "" && nextIndent > indent:
				// A synopsis wrapped onto indented lines.
				text += " " + strings.TrimSpace(next)
			default:
				goto done
			}
			i++
		}
	done:
		text = strings.TrimPrefix(strings.TrimPrefix(text, "$ "), "run: ")
		out = append(out, docLine{file: file, line: start + 1, text: text, exact: true})
	}
	p := prose.String()
	for _, m := range codeSpan.FindAllStringSubmatch(p, -1) {
		out = append(out, docLine{file: file, line: lineOf(src, "`"+m[1]), text: strings.Join(strings.Fields(m[1]), " ")})
	}
	return out
}

// lineOf is the 1-based line where span starts in src (0 when it is not
// found as it is).
func lineOf(src, span string) int {
	i := strings.Index(src, span)
	if i < 0 {
		return 0
	}
	return strings.Count(src[:i], "\n") + 1
}

// placeholder matches a word the reader replaces: DIR, RUN_DIR,
// SCENARIO.hcl, NAME=VALUE.
var placeholder = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(\.hcl)?$|^[A-Z][A-Z0-9_]*=`)

// checkCommandLine checks one command line against the command tree:
// the subcommand and every flag exist; for an exact line the flags also
// parse and the command takes its arguments.
func checkCommandLine(line string, exact bool) error {
	words := strings.Fields(line)
	if len(words) == 0 || !strings.HasSuffix(words[0], "trigger") {
		return fmt.Errorf("not a trigger command line")
	}
	var kept []string
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "#") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "(") ||
			w == "|" || w == "||" || w == "&&" || w == ";" || w == "2>&1" {
			break
		}
		w = strings.Trim(w, `"'`)
		bare := strings.Trim(w, "[]")
		if bare != w || bare == "…" || bare == "..." || strings.Contains(bare, "|") || strings.Contains(bare, "${{") ||
			strings.Contains(bare, "}}") || placeholder.MatchString(bare) {
			exact = false
		}
		if bare == "…" || bare == "..." || bare == "" {
			continue
		}
		kept = append(kept, bare)
	}
	root := newRoot(io.Discard, io.Discard)
	cmd := root
	i := 0
	for ; i < len(kept) && !strings.HasPrefix(kept[i], "-") && cmd.HasSubCommands(); i++ {
		alts := strings.Split(kept[i], "|")
		var next *cobra.Command
		for _, a := range alts {
			c := subcommand(cmd, a)
			if c == nil && len(alts) > 1 {
				return fmt.Errorf("%q is no subcommand of trigger %s", a, cmd.Name())
			}
			if c == nil {
				next = nil
				break
			}
			if next == nil {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd = next
	}
	if cmd == root && i < len(kept) && !strings.HasPrefix(kept[i], "-") {
		if placeholder.MatchString(kept[i]) {
			return nil // trigger COMMAND --help
		}
		return fmt.Errorf("%q is no subcommand of trigger", kept[i])
	}
	if cmd != root && cmd.HasSubCommands() && i < len(kept) && !strings.HasPrefix(kept[i], "-") && !placeholder.MatchString(kept[i]) && !cmd.Runnable() {
		return fmt.Errorf("%q is no subcommand of trigger %s", kept[i], cmd.Name())
	}
	rest := kept[i:]
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			continue
		}
		if err := flagExists(cmd, w); err != nil {
			return err
		}
	}
	if !exact {
		return nil
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := cmd.Flags().GetBool("help"); help || cmd == root {
		return nil // trigger --version, trigger COMMAND --help
	}
	if !cmd.Runnable() {
		return fmt.Errorf("trigger %s needs a subcommand", cmd.Name())
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// subcommand is cmd's subcommand called name (or one of its aliases).
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// flagExists reports whether the flag word w ("--name", "--name=value",
// "-n") names a flag of cmd.
func flagExists(cmd *cobra.Command, w string) error {
	if name, ok := strings.CutPrefix(w, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil {
			return fmt.Errorf("trigger %s has no flag --%s", cmd.Name(), name)
		}
		return nil
	}
	short := w[1:2]
	if cmd.Flags().ShorthandLookup(short) == nil && cmd.InheritedFlags().ShorthandLookup(short) == nil {
		return fmt.Errorf("trigger %s has no flag -%s", cmd.Name(), short)
	}
	return nil
}
