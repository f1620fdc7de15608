package scenarios

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/vocab"
)

// Touches is everything a scenario makes a run do outside its own process
// besides sending its load: the servers it contacts, the commands it
// runs, the secrets it sends and where, and the files it reads. plan and
// the confirmation show it before anything happens (docs/safety.md,
// "Running a scenario you did not write"); a run's result.json keeps it.
type Touches struct {
	Hosts    []HostUse
	Commands []CommandUse
	Secrets  []SecretUse
	Files    []FileUse
}

// HostUse is one server a run contacts.
type HostUse struct {
	// Origin is scheme://host:port (a webhook's path, a secret, left out).
	Origin string
	// For says what the run sends there: "load", "scrapes",
	// "queries", "the stop condition NAME", "the outcome (notify)".
	For string
}

// CommandUse is one command a run may execute.
type CommandUse struct {
	// When says when it runs: `fault "NAME" start`, `on_trap`.
	When string
	// Argv is the program and its arguments, run without a shell.
	Argv []string
	// Dir is the folder it runs from; "" for the run's working folder.
	Dir string
	// Env names the environment variables the scenario sets for it (its
	// env attribute), sorted; their values are not shown.
	Env []string
}

// SecretUse is one secret that leaves the process, and where it goes.
type SecretUse struct {
	// What names the secret without showing it: "environment variable
	// PROM_TOKEN", "sensitive variable token", "the webhook URL".
	What string
	// Origin is the scheme://host:port it is sent to, and Host that
	// host normalised (NormalizeHost) for allowlists; both "" when it
	// goes to a local command (Local says which).
	Origin, Host string
	// Local names the command a secret is handed to on this machine
	// (`fault "NAME" start`), for secrets that go to no host.
	Local string
	// As says how it is sent: "bearer token", "basic auth password",
	// "in target.headers".
	As string
}

// FileUse is one file a scenario makes the reader (plan as well as run)
// open.
type FileUse struct {
	// Path is the file as opened: absolute, or relative to the working
	// folder when the scenario's own folder is.
	Path string
	// For says what it is: "data \"users\"", "target.tls ca_file".
	For string
}

// touches collects what s touches; d has recorded which attributes were
// computed from a sensitive variable.
func (d *decoder) touches(s *Scenario) Touches {
	var t Touches
	t.Hosts = hostsOf(s)
	t.Commands = commandsOf(s)
	t.Files = d.filesOf(s)
	t.Secrets = d.secretsOf(s)
	d.hideSecretHosts(&t)
	return t
}

// hostsOf lists the servers s contacts, each origin once per purpose.
func hostsOf(s *Scenario) []HostUse {
	var hs []HostUse
	add := func(origin, what string) {
		if origin == "" {
			return
		}
		h := HostUse{Origin: origin, For: what}
		if !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	for _, r := range s.Target.Mix() {
		add(originOf(vocab.Readable(r.URL, s.Target.Slots)), "load")
	}
	if g := s.Target.GRPC; g != nil && g.Reflection {
		// check and the run's preflight ask each gRPC server's
		// reflection service for the message types.
		for _, r := range s.Target.Mix() {
			if r.GRPC != nil {
				add(originOf(vocab.Readable(r.URL, s.Target.Slots)), "the message types (gRPC reflection)")
			}
		}
	}
	if p := s.Prometheus; p != nil {
		for _, u := range p.Scrape {
			add(originOf(u), "scrapes")
		}
		if p.Address != embeddedAddress {
			add(originOf(p.Address), "queries")
		}
	}
	for _, c := range s.StopWhen {
		if c.Address != "" {
			add(originOf(c.Address), fmt.Sprintf("the stop condition %q", c.Name))
		}
	}
	if s.Notify != nil {
		add(originOf(s.Notify.Webhook), "the outcome (notify)")
	}
	return hs
}

// commandsOf lists the commands s may run.
func commandsOf(s *Scenario) []CommandUse {
	var cs []CommandUse
	if f := s.Fault; f != nil {
		env := slices.Sorted(maps.Keys(f.Env))
		cs = append(cs,
			CommandUse{When: fmt.Sprintf("fault %q start", f.Name), Argv: f.Start, Dir: f.Dir, Env: env},
			CommandUse{When: fmt.Sprintf("fault %q stop", f.Name), Argv: f.Stop, Dir: f.Dir, Env: env})
	}
	if t := s.OnTrap; t != nil && t.Action == vocab.TrapCommand && len(t.Command) > 0 {
		cs = append(cs, CommandUse{When: "on_trap", Argv: t.Command, Env: slices.Sorted(maps.Keys(t.Env))})
	}
	return cs
}

// filesOf lists the files s makes the reader open: data files and TLS
// files.
func (d *decoder) filesOf(s *Scenario) []FileUse {
	var fs []FileUse
	for _, ds := range s.Data {
		fs = append(fs, FileUse{Path: d.files.path(ds.File), For: fmt.Sprintf("data %q", ds.Name)})
	}
	tls := func(t *tlsfiles.Files, block string) {
		if t == nil {
			return
		}
		for _, f := range []struct{ name, path string }{{"ca_file", t.CAFile}, {"cert_file", t.CertFile}, {"key_file", t.KeyFile}} {
			if f.path != "" {
				fs = append(fs, FileUse{Path: f.path, For: block + ".tls " + f.name})
			}
		}
	}
	tls(s.Target.TLS, "target")
	if g := s.Target.GRPC; g != nil && g.DescriptorSet != "" {
		fs = append(fs, FileUse{Path: g.DescriptorSet, For: "target.grpc descriptor_set"})
	}
	if p := s.Prometheus; p != nil {
		tls(p.TLS, "prometheus")
	}
	for i, c := range s.StopWhen {
		tls(c.TLS, fmt.Sprintf("stop_when[%d]", i))
	}
	return fs
}

// secretsOf lists the secrets that leave the process: the environment
// variables the auth blocks name, the webhook URL, and every attribute
// computed from a sensitive variable whose value is sent somewhere.
func (d *decoder) secretsOf(s *Scenario) []SecretUse {
	var ss []SecretUse
	add := func(u SecretUse) {
		if !slices.Contains(ss, u) {
			ss = append(ss, u)
		}
	}
	toURL := func(what, as, raw string) {
		origin, host := originOf(raw), hostOf(raw)
		add(SecretUse{What: what, Origin: origin, Host: host, As: as})
	}
	auth := func(a *PrometheusAuth, address string) {
		if a == nil || address == "" || address == embeddedAddress {
			return
		}
		for _, e := range []struct{ env, as string }{
			{a.BearerTokenEnv, "bearer token"}, {a.UsernameEnv, "basic auth user"}, {a.PasswordEnv, "basic auth password"},
		} {
			if e.env != "" {
				toURL("environment variable "+e.env, e.as, address)
			}
		}
	}
	promAddress := ""
	if p := s.Prometheus; p != nil {
		promAddress = p.Address
		auth(p.Auth, p.Address)
	}
	for _, c := range s.StopWhen {
		if c.Address != "" {
			auth(c.Auth, c.Address)
		}
	}
	if n := s.Notify; n != nil && n.Webhook != "" {
		toURL("the webhook URL", "the URL posted to", n.Webhook)
	}
	// Attributes computed from a sensitive variable, in a stable order.
	paths := make([]string, 0, len(d.src.sensitive))
	for p := range d.src.sensitive {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		what := d.sensitiveNames(path)
		as := "in " + path
		switch {
		case path == "fault.env" && s.Fault != nil:
			as = inEnvironment(d.envSecretNames(path, s.Fault.Env))
		case path == "on_trap.env" && s.OnTrap != nil:
			as = inEnvironment(d.envSecretNames(path, s.OnTrap.Env))
		}
		for _, dest := range d.destinations(s, path, promAddress) {
			if dest.local != "" {
				add(SecretUse{What: what, Local: dest.local, As: as})
				continue
			}
			toURL(what, as, dest.url)
		}
	}
	return ss
}

// destination is where an attribute's value goes: a URL, or a local
// command.
type destination struct{ url, local string }

// destinations says where the value of the attribute at path is sent; none
// when it stays in the process (a model number, a gate threshold, a
// report's text, which redacts it).
func (d *decoder) destinations(s *Scenario, path, promAddress string) []destination {
	block, rest, _ := strings.Cut(path, ".")
	switch {
	case block == "target" && strings.HasPrefix(rest, "request["):
		i, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(rest, "]", 2)[0], "request["))
		if err != nil || i >= len(s.Target.Requests) {
			return nil
		}
		return []destination{{url: vocab.Readable(s.Target.Requests[i].URL, s.Target.Slots)}}
	case block == "target" && (rest == "url" || strings.HasPrefix(rest, "headers") || rest == "body" || rest == "method" || rest == "grpc.message" || rest == "tls.server_name"):
		// A server_name goes out in the TLS handshake (SNI), in clear, to
		// every host the load is sent to.
		var out []destination
		for _, r := range s.Target.Mix() {
			out = append(out, destination{url: vocab.Readable(r.URL, s.Target.Slots)})
		}
		return out
	case block == "prometheus" && rest == "scrape" && s.Prometheus != nil:
		// Each scrape URL is fetched, its query string with it, whether
		// the Prometheus is embedded or not.
		var out []destination
		for _, u := range s.Prometheus.Scrape {
			out = append(out, destination{url: u})
		}
		return out
	case block == "prometheus" && promAddress != embeddedAddress:
		return []destination{{url: promAddress}}
	case strings.HasPrefix(block, "stop_when["):
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(block, "stop_when["), "]"))
		if err != nil || i >= len(s.StopWhen) {
			return nil
		}
		if a := s.StopWhen[i].Address; a != "" {
			return []destination{{url: a}}
		}
		if promAddress != "" && promAddress != embeddedAddress {
			return []destination{{url: promAddress}}
		}
	case block == "notify" && s.Notify != nil:
		return []destination{{url: s.Notify.Webhook}}
	case block == "fault" && s.Fault != nil && rest == "env":
		return []destination{{local: fmt.Sprintf("fault %q start and stop", s.Fault.Name)}}
	case block == "fault" && s.Fault != nil:
		return []destination{{local: fmt.Sprintf("fault %q %s", s.Fault.Name, rest)}}
	case block == "on_trap" && (rest == "command" || rest == "env"):
		return []destination{{local: "on_trap command"}}
	}
	return nil
}

// sensitiveNames names the sensitive variables the attribute at path
// reads: "sensitive variable token", or "sensitive variables a, b".
func (d *decoder) sensitiveNames(path string) string {
	var names []string
	if a := d.src.attrs[path]; a != nil {
		for _, tr := range a.Expr.Variables() {
			if tr.RootName() != "var" || len(tr) < 2 {
				continue
			}
			if at, ok := tr[1].(hcl.TraverseAttr); ok && d.sensitiveVars[at.Name] && !slices.Contains(names, at.Name) {
				names = append(names, at.Name)
			}
		}
	}
	switch len(names) {
	case 0:
		return "a sensitive value"
	case 1:
		return "sensitive variable " + names[0]
	default:
		slices.Sort(names)
		return "sensitive variables " + strings.Join(names, ", ")
	}
}

// originOf is raw's scheme://host:port, its path, query and userinfo
// left out (a webhook's path is its secret); "" when raw is no URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https", "grpcs":
			port = "443"
		case "http", "grpc":
			port = "80"
		}
	}
	host := u.Hostname()
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

// hostOf is raw's host, normalised (NormalizeHost); "" when raw is no URL.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return NormalizeHost(u.Hostname())
}
