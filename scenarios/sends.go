package scenarios

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/trigger-test/trigger/vocab"
)

// NotAllowedError is a host the scenario would send to (or scrape) that is
// not in target.allow_hosts.
type NotAllowedError struct {
	What  string   // "the target's host", "the host header's host", "the scrape target's host"
	Host  string   // as found (a scrape URL that does not parse: the URL), per-request values as the scenario spells them
	Allow []string // target.allow_hosts
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("%s %q is not in allow_hosts %q", e.What, e.Host, e.Allow)
}

// CheckSends reports the first host s would reach outside its
// allow_hosts: the target URL's, a Host or :authority header's (load would
// reach another virtual host behind an allowed address), or a scrape URL's,
// as a *NotAllowedError; a target URL that does not parse is a plain
// error. Whatever sends load checks it before the first attempt: the
// runner, and each agent of a run spread over several machines.
func CheckSends(s *Scenario) error {
	allow := s.Target.AllowHosts
	refuse := func(what, host string) error {
		return &NotAllowedError{What: what, Host: vocab.Readable(host, s.Target.Slots), Allow: allow}
	}
	for _, r := range s.Target.Mix() {
		u, err := url.Parse(r.URL)
		if err != nil {
			return fmt.Errorf("target url: %w", err)
		}
		if !HostAllowed(allow, u.Hostname()) {
			return refuse("the target's host", u.Hostname())
		}
		for k, v := range r.Headers {
			if k := strings.ToLower(k); k == "host" || k == ":authority" {
				if h := HeaderHost(v); !HostAllowed(allow, h) {
					return refuse("the "+k+" header's host", h)
				}
			}
		}
	}
	if p := s.Prometheus; p != nil {
		for _, raw := range p.Scrape {
			su, err := url.Parse(raw)
			if err != nil || !HostAllowed(allow, su.Hostname()) {
				host := raw
				if err == nil {
					host = su.Hostname()
				}
				return refuse("the scrape target's host", host)
			}
		}
	}
	return nil
}
