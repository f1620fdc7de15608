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
	allowFiles []string
}

func (f *scenarioFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.vars, "var", nil, "set a scenario variable, NAME=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&f.allowFiles, "allow-files", nil,
		"let the scenario read data and TLS files from DIR too, not only from its own folder (repeatable)")
}

// options are the reader's options the flags give.
func (f *scenarioFlags) options() (scenarios.Options, error) {
	vars, err := f.values()
	return scenarios.Options{Vars: vars, AllowFiles: f.allowFiles}, err
}

// load reads and validates the scenario; every problem is printed to stderr
// with file:line:col and its source, and the error carries exit code 2.
func (f *scenarioFlags) load(path string, stderr io.Writer) (*scenarios.Scenario, error) {
	o, err := f.options()
	if err != nil {
		return nil, err
	}
	s, err := scenarios.LoadWith(path, o)
	return reportedTo(s, err, stderr)
}

// values are the --var values by name.
func (f *scenarioFlags) values() (map[string]string, error) {
	vars := map[string]string{}
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
