package convert

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trigger-test/trigger/internal/safetext"
	"github.com/trigger-test/trigger/scenarios"
)

// Consent is what the operator allows a scenario beyond sending its load,
// given on the command line and never by the scenario (docs/safety.md,
// "Running a scenario you did not write"): --yes skips the question, not
// these.
type Consent struct {
	// AllowCommands lets the run execute the scenario's commands (a
	// fault's start and stop, an on_trap command).
	AllowCommands bool
	// SecretHosts are the hosts that may receive the operator's secrets
	// (environment variables an auth block names, sensitive variables'
	// values, the webhook URL), compared as allow_hosts entries are.
	SecretHosts []string
}

// ErrNoConsent is a scenario that would do something the operator did not
// allow: run a command without --allow-commands, or send a secret to a
// host --secret-hosts does not list.
var ErrNoConsent = errors.New("not allowed by the operator")

// CheckConsent refuses a run the operator did not allow: commands without
// AllowCommands (each named, as it would run), secrets bound for hosts
// outside SecretHosts (scenarios.CheckSecretHosts). Both the command line
// (before it asks) and the runner (before anything is sent) check it.
func (r Run) CheckConsent(c Consent) error {
	var problems []string
	if len(r.Touches.Commands) > 0 && !c.AllowCommands {
		var b strings.Builder
		b.WriteString("the scenario runs commands, and --allow-commands was not given:")
		for _, cmd := range r.Touches.Commands {
			fmt.Fprintf(&b, "\n  %s: %s", cmd.When, safetext.Argv(cmd.Argv))
			if cmd.Dir != "" {
				fmt.Fprintf(&b, "   (in %s)", safetext.Line(cmd.Dir))
			}
			if len(cmd.Env) > 0 {
				fmt.Fprintf(&b, "   (environment: %s)", safetext.Line(strings.Join(cmd.Env, ", ")))
			}
		}
		b.WriteString("\nRead them; if they are what you mean to run, add --allow-commands")
		problems = append(problems, b.String())
	}
	if err := scenarios.CheckSecretHosts(r.Touches, c.SecretHosts); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNoConsent, strings.Join(problems, "\n"))
}
