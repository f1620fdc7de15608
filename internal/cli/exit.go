package cli

import (
	"fmt"

	"github.com/trigger-test/trigger/analysis"
)

// Exit codes (docs/design.md, "CLI and exit codes"; README.md lists them
// for users).
const (
	ExitPassed       = 0   // the gate passed
	ExitGateFailed   = 1   // the gate failed
	ExitUsage        = 2   // usage or scenario error
	ExitInconclusive = 3   // no trigger happened, or data missing
	ExitHarness      = 4   // harness or infrastructure error
	ExitStopped      = 5   // a brake stopped the run: stop_when, --abort-file
	ExitInterrupted  = 130 // SIGINT or SIGTERM
)

// ExitError carries the exit code a command ends with.
type ExitError struct {
	Code int
	Err  error
	// Reported is set when the command already told the user about Err.
	Reported bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitFor maps a result document to its exit code: a no-trigger or
// inconclusive verdict is inconclusive whatever the gate says; otherwise the
// gate decides, and a gate whose only criteria not passed are ones one
// document cannot judge (max_trap_probability) is inconclusive.
func exitFor(doc analysis.Document) error {
	switch {
	case doc.Verdict == analysis.VerdictNoTrigger, doc.Verdict == analysis.VerdictInconclusive,
		!doc.Gate.Passed && doc.Gate.OnlyNotJudged():
		return &ExitError{Code: ExitInconclusive, Reported: true}
	case !doc.Gate.Passed:
		return &ExitError{Code: ExitGateFailed, Reported: true}
	}
	return nil
}
