package scenarios

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/vocab"
)

// Target is the service under test (block "target").
type Target struct {
	URL        string            // required; http or https
	Method     string            // default "GET"
	Headers    map[string]string // sent with every attempt
	Body       string            // request body, default empty
	AllowHosts []string          // required; the URL's host must be listed (normalised: NormalizeHost)
	// OKStatus lists the HTTP status codes that count as success; empty
	// means 200–299 (a 3xx is then not a success: a redirect is not the
	// service answering).
	OKStatus []int
	// Requests are the target's request blocks, each with its weight in
	// the mix; empty in the single-request form (URL, Method, Headers,
	// Body). Mix returns either as a list.
	Requests []Request
	// Slots is the table of per-request values the markers in the
	// requests' url, headers and body stand for (vocab.Slot): FixedSlots,
	// then the data columns', random::int calls' and their JSON forms.
	Slots []vocab.Slot
	// Protocol is the HTTP version spoken to the target; default HTTP/1.1.
	Protocol vocab.Protocol
	// TLS is the target's TLS setup for an https:// URL (a CA to trust, a
	// client certificate for mutual TLS); nil when the block is absent.
	TLS *tlsfiles.Files
	// GRPC makes the attempts gRPC calls (block "grpc"), to a grpc:// or
	// grpcs:// URL; nil for HTTP. With request blocks it holds where the
	// message types come from only, each gRPC request its own call.
	GRPC *GRPC
}

// DefaultMethod is target.method.
const DefaultMethod = "GET"

// targetSchema is the target block's: attribute names are the snake_case
// of Target's fields.
var targetSchema = &hcl.BodySchema{
	Attributes: attrs("url", "method", "headers", "body", "allow_hosts", "ok_status", "protocol"),
	Blocks: append(blocks("tls", "grpc"),
		hcl.BlockHeaderSchema{Type: "request", LabelNames: []string{"name"}}),
}

// decodeTarget decodes the target block, allow_hosts normalised.
func (d *decoder) decodeTarget(blk *hcl.Block) Target {
	b := d.open("target", "target", blk.Body, blk.DefRange, schemaOf("target"))
	var t Target
	d.withPerRequest(func() { t.URL = b.str("url", "") })
	t.Method = b.str("method", DefaultMethod)
	d.withPerRequest(func() { t.Headers, t.Body = b.strMap("headers"), b.str("body", "") })
	t.AllowHosts = b.strList("allow_hosts", nil)
	t.OKStatus = b.statusList("ok_status")
	t.Protocol = enum(b, "protocol", "protocol", vocab.DefaultProtocol, vocab.ProtocolNames(), vocab.ParseProtocol)
	t.TLS = d.decodeTLS(b, "target")
	t.Requests = d.decodeRequests(b, t.Headers)
	t.GRPC = d.decodeGRPC(b, "target", true, len(t.Requests) == 0)
	for i, h := range t.AllowHosts {
		t.AllowHosts[i] = NormalizeHost(h)
	}
	if len(t.Requests) == 0 {
		b.require("url", `the URL every attempt is sent to, e.g. url = "http://127.0.0.1:8080/work".`)
	}
	b.require("allow_hosts", `the hosts a run may send load to, a guard against pointing a destructive test at the wrong place, e.g. allow_hosts = ["127.0.0.1", "localhost"].`)
	return t
}

// target checks the target block: its URL, allow_hosts, method and
// headers, and ok_status.
func (v *validator) target() {
	if !v.present("target") {
		return
	}
	t := &v.s.Target
	if v.d.src.has("target.url") {
		v.targetURL(t)
	}
	v.errorf(v.d.src.has("target.allow_hosts") && len(t.AllowHosts) == 0, "target.allow_hosts", "Empty allow_hosts",
		"allow_hosts lists the hosts a run may overload; with none, every run is refused. Add the target's host, e.g. [\"127.0.0.1\"].")
	for i, h := range t.AllowHosts {
		p := fmt.Sprintf("target.allow_hosts[%d]", i)
		bad := strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/ @")
		v.errorf(bad, p, "Invalid host",
			"%q is not a host name: give names or addresses without scheme, port or path, such as \"127.0.0.1\" or \"staging.internal\".", h)
		v.errorf(!bad && hostPort(h), p, "Invalid host",
			"%q looks like host:port; allow_hosts lists hosts without port, such as \"127.0.0.1\" (an IPv6 address may be written \"::1\" or \"[::1]\").", h)
	}
	v.errorf(!isToken(t.Method), "target.method", "Invalid HTTP method", "%q is not an HTTP method, such as \"GET\" or \"POST\".", t.Method)
	for _, name := range sortedKeys(t.Headers) {
		val := t.Headers[name]
		p := fmt.Sprintf("target.headers[%s]", name)
		if v.hostHeader(t, p, name, val) {
			continue
		}
		v.errorf(!isToken(name), p, "Invalid header name", "%q is not a valid HTTP header name.", name)
		v.errorf(strings.ContainsAny(val, "\r\n"), p, "Invalid header value", "The value of header %q contains a line break.", name)
	}
	v.requests(t)
	v.grpc(t)
	if t.TLS != nil && v.d.src.ok("target.url") && (strings.HasPrefix(t.URL, "http://") || strings.HasPrefix(t.URL, "grpc://")) {
		scheme, _, _ := strings.Cut(t.URL, ":")
		v.warnf(true, "target.tls", "Setting ignored",
			"tls applies to an https:// or grpcs:// target; %q is %s://, so no TLS is spoken. Use %ss:// or drop the block.", t.URL, scheme, scheme)
	}
	if t.TLS != nil {
		v.errorf((t.TLS.CertFile == "") != (t.TLS.KeyFile == ""), "target.tls", "Incomplete client certificate",
			"cert_file and key_file go together: mutual TLS needs the certificate and its key. Set both or neither.")
	}
	for _, c := range t.OKStatus {
		if c >= 500 {
			v.warnf(true, "target.ok_status", "Server errors count as success",
				"ok_status makes %d a success: a run then cannot see the service fail with it. Leave 5xx out unless the service answers it by design.", c)
			break
		}
	}
}

// hostHeader reports a Host or :authority header (any case) whose host is
// not in allow_hosts: the load would go to another virtual host than the
// one allowed. It returns true when it reported one.
func (v *validator) hostHeader(t *Target, path, name, val string) bool {
	if !strings.EqualFold(name, "host") && !strings.EqualFold(name, ":authority") {
		return false
	}
	if !v.d.src.ok("target.allow_hosts") || len(t.AllowHosts) == 0 {
		return false
	}
	host := HeaderHost(val)
	if HostAllowed(t.AllowHosts, host) {
		return false
	}
	v.errorf(true, path, "Host header not allowed",
		"The %s header names host %q, which is not in allow_hosts [%s]: load would go to another virtual host. Add %q to allow_hosts only if it is a staging service you may take down, or drop the header.",
		name, v.readable(host), strings.Join(quoted(t.AllowHosts), ", "), v.readable(NormalizeHost(host)))
	return true
}

// sortedKeys returns the keys of m in order, so diagnostics come out in
// the same order every time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// targetURL checks the target URL and that its host is allowed.
func (v *validator) targetURL(t *Target) { v.requestURL(t, "target.url", t.URL) }

// requestURL checks a URL load is sent to (the target's, or a request
// block's at path) and that its host is in t's allow_hosts.
func (v *validator) requestURL(t *Target, path, raw string) {
	if v.credentials(path, raw, `send them in a header whose value comes from a sensitive variable, such as headers = { Authorization = "Bearer ${var.token}" }`) {
		return
	}
	if !strings.Contains(raw, "://") {
		v.errorf(true, path, "Invalid target URL",
			"%q has no scheme: the target URL must be http:// or https:// (grpc:// or grpcs:// for a gRPC call), such as \"http://%s\".", v.readable(raw), v.readable(strings.TrimLeft(raw, "/")))
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		v.errorf(true, path, "Invalid target URL", "%q is not a URL: %v.", v.readable(raw), vocab.Readable(unwrapURLError(err).Error(), v.d.slots))
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "grpc" && u.Scheme != "grpcs" {
		v.errorf(true, path, "Invalid target URL",
			"The target URL must be http:// or https:// (grpc:// or grpcs:// for a gRPC call), such as \"http://127.0.0.1:8080/work\"; %q has %s.", v.readable(raw), schemeDesc(u.Scheme))
		return
	}
	host := u.Hostname()
	if host == "" {
		v.errorf(true, path, "Invalid target URL", "%q has no host.", v.readable(raw))
		return
	}
	if !v.d.src.ok("target.allow_hosts") || len(t.AllowHosts) == 0 || HostAllowed(t.AllowHosts, host) {
		return
	}
	if vocab.HasMarker(host) {
		v.errorf(true, path, "Host not allowed",
			"The target host %q is made of per-request values, which allow_hosts [%s] cannot allow: write the host of the staging service literally.",
			v.readable(host), strings.Join(quoted(t.AllowHosts), ", "))
		return
	}
	v.errorf(true, path, "Host not allowed",
		"The target host %q is not in allow_hosts [%s]. A trigger test overloads its target on purpose: add %q to allow_hosts only if it is a staging service you may take down.",
		host, strings.Join(quoted(t.AllowHosts), ", "), host)
}

// readable is s (a URL, a host) with its per-request values written as the
// scenario spells them (${request.id}, ${data.rows.host}) instead of the
// markers that hold their place, for a diagnostic.
func (v *validator) readable(s string) string { return vocab.Readable(s, v.d.slots) }

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2):
// the syntax of methods and header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// schemeDesc names a URL's scheme for a diagnostic.
func schemeDesc(s string) string {
	if s == "" {
		return "no scheme"
	}
	return fmt.Sprintf("scheme %q", s)
}

// unwrapURLError drops url.Error's repetition of the operation and URL.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
