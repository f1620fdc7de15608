package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trigger-test/trigger/convert"
)

// SecretHostsEnv is the environment variable that gives --secret-hosts'
// default, for a CI job whose configuration (not the scenario a pull
// request brings) says where its secrets may go.
const SecretHostsEnv = "TRIGGER_SECRET_HOSTS"

// consentFlags are what the operator allows a scenario beyond its load
// (convert.Consent): run and campaign take them; --yes is not one of them.
type consentFlags struct {
	allowCommands bool
	secretHosts   []string
}

func (f *consentFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.allowCommands, "allow-commands", false,
		"let the scenario run its commands (a fault's start and stop, an on_trap command); plan lists them. --yes does not imply it")
	cmd.Flags().StringSliceVar(&f.secretHosts, "secret-hosts", splitList(os.Getenv(SecretHostsEnv)),
		"hosts that may receive your secrets (the environment variables auth blocks name, sensitive variables, the webhook URL), comma-separated; default $"+SecretHostsEnv)
}

func (f *consentFlags) consent() convert.Consent {
	return convert.Consent{AllowCommands: f.allowCommands, SecretHosts: f.secretHosts}
}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
