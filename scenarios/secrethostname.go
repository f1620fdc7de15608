package scenarios

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/vocab"
)

// A secret inside a host name cannot be kept: the run looks the name up
// (DNS carries it to every resolver on the way), sends it in the TLS
// handshake (SNI) and in the Host header, and plan, the confirmation,
// --secret-hosts and result.json name every host a run contacts. So a
// URL whose host name holds the value of a sensitive variable is refused
// while the scenario is read, at its line and without showing the value
// (docs/safety.md, "Running a scenario you did not write"); and, should
// one slip through, Touches shows such a host with the value replaced by
// SensitiveValue, which no --secret-hosts entry can match.

// minHostSecret is the shortest text of a sensitive value looked for in
// host names: a shorter one ("1", "on") is no secret worth the name and
// would be found in hosts that do not come from it (127.0.0.1).
const minHostSecret = 4

// sensitiveHostTexts are the texts of the sensitive variables' values
// that are long enough to look for in a host name.
func (d *decoder) sensitiveHostTexts() []string {
	if d.ctx == nil || len(d.sensitiveVars) == 0 {
		return nil
	}
	vars := d.ctx.Variables["var"]
	if !vars.Type().IsObjectType() {
		return nil
	}
	var out []string
	for name := range d.sensitiveVars {
		if !vars.Type().HasAttribute(name) {
			continue
		}
		v, _ := vars.GetAttr(name).UnmarkDeep()
		if v == cty.NilVal {
			continue
		}
		for _, t := range textForms(v) {
			if t = strings.TrimSpace(t); len(t) >= minHostSecret && !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	sortSecrets(out)
	return out
}

// secretInHost reports whether the host name of raw holds one of texts,
// compared case-insensitively (host names are).
func secretInHost(raw string, texts []string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, t := range texts {
		if strings.Contains(h, strings.ToLower(t)) {
			return true
		}
	}
	return false
}

// secretHostNames refuses every URL computed from a sensitive variable
// whose host name holds the variable's value.
func (v *validator) secretHostNames() {
	texts := v.d.sensitiveHostTexts()
	if len(texts) == 0 {
		return
	}
	src := v.d.src
	check := func(path string, raws ...string) {
		if !src.sensitive[path] {
			return
		}
		for _, raw := range raws {
			if secretInHost(raw, texts) {
				v.errorf(true, path, "Secret in a host name",
					"The host name in %s holds the value of %s. A host name is not kept secret: the run looks it up (DNS), sends it in the TLS handshake (SNI) and the Host header, and names it in plan, the confirmation and result.json. "+
						"Put the secret where it is sent only to that host: a header (headers = { Authorization = \"Bearer ${var.token}\" }) or an auth block.", path, v.d.sensitiveNames(path))
				return
			}
		}
	}
	s := v.s
	check("target.url", vocab.Readable(s.Target.URL, s.Target.Slots))
	for i, r := range s.Target.Requests {
		check(fmt.Sprintf("target.request[%d].url", i), vocab.Readable(r.URL, s.Target.Slots))
	}
	if p := s.Prometheus; p != nil {
		check("prometheus.address", p.Address)
		check("prometheus.scrape", p.Scrape...)
	}
	for i, c := range s.StopWhen {
		check(fmt.Sprintf("stop_when[%d].address", i), c.Address)
	}
	if n := s.Notify; n != nil {
		check("notify.webhook", n.Webhook)
	}
}

// hideSecretHosts replaces, in the host names of t's hosts and secrets'
// destinations, the texts of sensitive values by SensitiveValue.
func (d *decoder) hideSecretHosts(t *Touches) {
	texts := d.sensitiveHostTexts()
	if len(texts) == 0 {
		return
	}
	var pats []string
	for _, s := range texts {
		pats = append(pats, regexp.QuoteMeta(s))
	}
	re := regexp.MustCompile("(?i)" + strings.Join(pats, "|"))
	hide := func(s string) string { return re.ReplaceAllLiteralString(s, SensitiveValue) }
	origin := func(o string) string {
		scheme, rest, ok := strings.Cut(o, "://")
		if !ok {
			return hide(o)
		}
		return scheme + "://" + hide(rest)
	}
	for i := range t.Hosts {
		t.Hosts[i].Origin = origin(t.Hosts[i].Origin)
	}
	for i := range t.Secrets {
		t.Secrets[i].Origin = origin(t.Secrets[i].Origin)
		t.Secrets[i].Host = hide(t.Secrets[i].Host)
	}
}
