package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/scenarios"
)

// scenarioFlags are the flags every command that reads a scenario takes.
type scenarioFlags struct {
	vars       []string
	varFiles   []string
	allowFiles []string
	// stdin, when set, is where the scenario "-" is read from (plan).
	stdin io.Reader
	// resolved are the variable values the scenario was read with, from
	// the environment, the var files and --var (set by load).
	resolved map[string]string
}

func (f *scenarioFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.vars, "var", nil, "set a scenario variable, NAME=VALUE (repeatable; wins over --var-file and TRIGGER_VAR_NAME)")
	cmd.Flags().StringArrayVar(&f.varFiles, "var-file", nil,
		"read scenario variables from FILE, NAME = VALUE lines as a .tfvars file (repeatable, a later file wins; TRIGGER_VAR_NAME environment variables count below every file)")
	cmd.Flags().StringArrayVar(&f.allowFiles, "allow-files", nil,
		"let the scenario read data and TLS files from DIR too, not only from its own folder (repeatable)")
}

// stdinName names the scenario read from standard input in diagnostics;
// its relative paths are taken from the working directory.
const stdinName = "<stdin>"

// load reads and validates the scenario; every problem is printed to stderr
// with file:line:col and its source, and the error carries exit code 2.
func (f *scenarioFlags) load(path string, stderr io.Writer) (*scenarios.Scenario, error) {
	name, src, err := f.source(path)
	if err != nil {
		return reportedTo(nil, err, stderr)
	}
	vars, err := f.values(declaredVariables(src), os.LookupEnv)
	if err != nil {
		return nil, err
	}
	f.resolved = vars
	s, err := scenarios.ParseWith(name, src, scenarios.Options{Vars: vars, AllowFiles: f.allowFiles})
	if err == nil {
		s.File = name
	}
	return reportedTo(s, err, stderr)
}

// source reads the scenario at path, or standard input for "-" when the
// command takes it, and names it for diagnostics.
func (f *scenarioFlags) source(path string) (string, []byte, error) {
	if path != "-" || f.stdin == nil {
		src, err := scenarios.ReadSource(path)
		return path, src, err
	}
	src, err := io.ReadAll(io.LimitReader(f.stdin, scenarios.MaxFileBytes+1))
	if err != nil {
		return "", nil, fmt.Errorf("load scenario: %s: %w", stdinName, err)
	}
	if len(src) > scenarios.MaxFileBytes {
		return "", nil, fmt.Errorf("load scenario: %s: larger than %d bytes", stdinName, scenarios.MaxFileBytes)
	}
	return stdinName, src, nil
}

// values are the scenario variables' values by name, as Terraform orders
// them: the TRIGGER_VAR_NAME environment variables of the declared names
// (lookup reads the environment), then each --var-file in order, then
// --var, a later one winning.
func (f *scenarioFlags) values(declared []string, lookup func(string) (string, bool)) (map[string]string, error) {
	vars := envVars(declared, lookup)
	own, err := f.flagValues()
	if err != nil {
		return nil, err
	}
	for name, v := range own {
		vars[name] = v
	}
	return vars, nil
}

// flagValues are the values the var files and --var give, --var winning.
func (f *scenarioFlags) flagValues() (map[string]string, error) {
	vars := map[string]string{}
	for _, path := range f.varFiles {
		fv, err := readVarFile(path)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: err}
		}
		for name, v := range fv {
			vars[name] = v
		}
	}
	for _, v := range f.vars {
		name, value, err := scenarios.ParseVar(v)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--var %q: %w", v, err)}
		}
		vars[name] = value
	}
	return vars, nil
}

// reported prints a scenario's diagnostics (or its warnings) to stderr and
// gives its error exit code 2.
func reportedTo(s *scenarios.Scenario, err error, stderr io.Writer) (*scenarios.Scenario, error) {
	width, color := terminal(stderr)
	var se *scenarios.Error
	switch {
	case errors.As(err, &se):
		if rerr := se.Render(stderr, width, color); rerr != nil {
			return nil, &ExitError{Code: ExitHarness, Err: rerr}
		}
		return nil, &ExitError{Code: ExitUsage, Err: se, Reported: true}
	case err != nil:
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if s.Warnings != nil {
		if err := s.Warnings.Render(stderr, width, color); err != nil {
			return nil, &ExitError{Code: ExitHarness, Err: err}
		}
	}
	return s, nil
}

// loadTest reads the scenario and converts it (convert.New): the one
// loading path of plan, simulate and run. Every error carries exit code
// 2: a scenario that decoded but cannot be converted is still the
// scenario's fault.
//
// It returns as soon as ctx ends (a signal): reading a scenario is
// bounded (a pipe's for 30 s), but a stop must not wait for it.
func (f *scenarioFlags) loadTest(ctx context.Context, path string, stderr io.Writer) (*convert.Test, error) {
	type loaded struct {
		t   *convert.Test
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		t, err := f.loadTestNow(path, stderr)
		done <- loaded{t, err}
	}()
	select {
	case l := <-done:
		return l.t, l.err
	case <-ctx.Done():
		return nil, &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted while reading %s", path)}
	}
}

// loadTestNow is loadTest without the wait for ctx.
func (f *scenarioFlags) loadTestNow(path string, stderr io.Writer) (*convert.Test, error) {
	s, err := f.load(path, stderr)
	if err != nil {
		return nil, err
	}
	t, err := convert.New(s)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return t, nil
}

// terminal reports the width of w and whether to use color, when w is a
// terminal; (0, false) otherwise (files, pipes, CI logs, tests).
func terminal(w io.Writer) (width uint, color bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return 0, os.Getenv("NO_COLOR") == ""
	}
	return uint(cols), os.Getenv("NO_COLOR") == ""
}
