package scenarios

import (
	"fmt"
	"strings"

	"github.com/trigger-test/trigger/internal/safetext"
)

// SecretHostsError is a scenario that would send secrets to hosts the
// operator did not list (trigger run --secret-hosts): a scenario cannot
// widen where the operator's credentials go on its own, as it can widen
// its allow_hosts (docs/safety.md, "Running a scenario you did not write").
type SecretHostsError struct {
	// Refused are the secrets bound for unlisted hosts.
	Refused []SecretUse
	// Allowed is the operator's list, as given.
	Allowed []string
}

func (e *SecretHostsError) Error() string {
	var b strings.Builder
	b.WriteString("the scenario sends secrets to hosts the operator did not allow (--secret-hosts):")
	var hosts []string
	for _, s := range e.Refused {
		fmt.Fprintf(&b, "\n  %s (%s) to %s", safetext.Line(s.What), safetext.Line(s.As), safetext.Line(s.Origin))
		if h := safetext.Line(s.Host); h != "" && !contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	if len(e.Allowed) > 0 {
		fmt.Fprintf(&b, "\n--secret-hosts lists %s.", safetext.Line(strings.Join(e.Allowed, ", ")))
	}
	fmt.Fprintf(&b, "\nIf these are the scenario's own servers, add them: --secret-hosts %s", strings.Join(hosts, ","))
	return b.String()
}

// CheckSecretHosts returns a *SecretHostsError naming every secret in t
// bound for a host not in allowed (compared as HostAllowed does), or for a
// host whose name holds a secret, nil when there is none. Secrets handed to local commands are not its concern:
// commands run only with the operator's --allow-commands.
func CheckSecretHosts(t Touches, allowed []string) error {
	var refused []SecretUse
	for _, s := range t.Secrets {
		if s.Local != "" {
			continue
		}
		// A host holding a secret (Touches shows it as SensitiveValue)
		// is never allowed, whatever the list says.
		if strings.Contains(s.Host, SensitiveValue) || !HostAllowed(allowed, s.Host) {
			refused = append(refused, s)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &SecretHostsError{Refused: refused, Allowed: allowed}
}
