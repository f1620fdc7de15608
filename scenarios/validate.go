package scenarios

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// validator runs the semantic checks on a decoded scenario. Every check
// names the path of the value it is about; the diagnostic's subject is that
// value's source range (or the enclosing block's DefRange when the value was
// left out), and a value that already failed to decode is not checked again.
type validator struct {
	d *decoder
	s *Scenario
}

// validate checks s and completes what depends on several values (the
// service's capacity from pods × pod_rate). Problems go to d.diags.
func validate(s *Scenario, d *decoder) {
	v := &validator{d: d, s: s}
	v.scenario()
	v.target()
	v.client()
	v.layers()
	v.service()
	v.load()
	v.prometheus()
	v.recovery()
	v.onTrap()
	v.gate()
	v.stopWhen()
	v.duration()
}

// present reports whether the block at path was decoded.
func (v *validator) present(path string) bool {
	_, ok := v.d.src.blocks[path]
	return ok && v.d.src.ok(path)
}

// report adds a diagnostic about the value at path, unless that value has
// already been reported.
func (v *validator) report(sev hcl.DiagnosticSeverity, path, summary, format string, args ...any) {
	if !v.d.src.ok(path) {
		return
	}
	v.d.reportAt(sev, path, summary, format, args...)
}

// errorf reports an error about the value at path when bad is true.
func (v *validator) errorf(bad bool, path, summary, format string, args ...any) {
	if bad {
		v.report(hcl.DiagError, path, summary, format, args...)
	}
}

// warnf reports a warning about the value at path when bad is true.
func (v *validator) warnf(bad bool, path, summary, format string, args ...any) {
	if bad {
		v.report(hcl.DiagWarning, path, summary, format, args...)
	}
}

// oneOf reports value at path when it is not one of options, suggesting
// the closest option.
func (v *validator) oneOf(path, what, value string, options []string) {
	v.errorf(!contains(options, value), path, "Unknown "+what,
		"%q is not a known %s.%s Use %s.", value, what, didYouMean(value, options), quoteList(options))
}

// fraction checks lo < x ≤ 1 (open) or lo ≤ x ≤ 1 (closed).
func (v *validator) fraction(x float64, open bool, path, name, meaning string) {
	if open {
		v.errorf(x <= 0 || x > 1, path, "Value out of range", "%s must be in (0, 1]: it is %s. Got %g.", name, meaning, x)
		return
	}
	v.errorf(x < 0 || x > 1, path, "Value out of range", "%s must be in [0, 1]: it is %s. Got %g.", name, meaning, x)
}

// positiveDur checks d > 0.
func (v *validator) positiveDur(d time.Duration, path, name, meaning string) {
	v.errorf(d <= 0, path, "Value out of range", "%s must be longer than zero: it is %s. Got %s.", name, meaning, d)
}

// nonNegDur checks d ≥ 0.
func (v *validator) nonNegDur(d time.Duration, path, name, meaning string) {
	v.errorf(d < 0, path, "Value out of range", "%s must not be negative: it is %s. Got %s.", name, meaning, d)
}

func (v *validator) scenario() {
	if !v.present("scenario") {
		return
	}
	v.nonNegDur(v.s.MaxDuration, "scenario.max_duration", "max_duration", "the hard limit on a run's wall time (0: the default)")
}

// duration checks that max_duration leaves room for the run it limits.
func (v *validator) duration() {
	if v.s.MaxDuration <= 0 || !v.present("load") || !v.d.src.ok("scenario.max_duration") {
		return
	}
	l := v.s.Load
	run := l.Warmup + l.Spike.Duration + l.Observe
	v.errorf(v.s.MaxDuration < run, "scenario.max_duration", "Run longer than max_duration",
		"max_duration = %s would stop the run before it ends: warmup %s + spike %s + observe %s = %s.",
		v.s.MaxDuration, l.Warmup, l.Spike.Duration, l.Observe, run)
}

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
		name, host, strings.Join(quoted(t.AllowHosts), ", "), NormalizeHost(host))
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
func (v *validator) targetURL(t *Target) {
	const path = "target.url"
	if v.credentials(path, t.URL, `send them in a header whose value comes from a sensitive variable, such as headers = { Authorization = "Bearer ${var.token}" }`) {
		return
	}
	if !strings.Contains(t.URL, "://") {
		v.errorf(true, path, "Invalid target URL",
			"%q has no scheme: the target URL must be http:// or https://, such as \"http://%s\".", t.URL, strings.TrimLeft(t.URL, "/"))
		return
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		v.errorf(true, path, "Invalid target URL", "%q is not a URL: %v.", t.URL, unwrapURLError(err))
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		v.errorf(true, path, "Invalid target URL",
			"The target URL must be http:// or https://, such as \"http://127.0.0.1:8080/work\"; %q has %s.", t.URL, schemeDesc(u.Scheme))
		return
	}
	host := u.Hostname()
	if host == "" {
		v.errorf(true, path, "Invalid target URL", "%q has no host.", t.URL)
		return
	}
	if !v.d.src.ok("target.allow_hosts") || len(t.AllowHosts) == 0 || HostAllowed(t.AllowHosts, host) {
		return
	}
	v.errorf(true, path, "Host not allowed",
		"The target host %q is not in allow_hosts [%s]. A trigger test overloads its target on purpose: add %q to allow_hosts only if it is a staging service you may take down.",
		host, strings.Join(quoted(t.AllowHosts), ", "), host)
}

func (v *validator) client() {
	if !v.present("client") {
		return
	}
	c := &v.s.Client
	v.positiveDur(c.Timeout, "client.timeout", "timeout", "τ_out, the patience of one attempt")
	v.errorf(c.MaxInFlight <= 0 || c.MaxInFlight > MaxInFlight, "client.max_in_flight", "Value out of range",
		"max_in_flight bounds the attempts in flight at once and must be at least 1 and at most 1,000,000. Got %d.", c.MaxInFlight)
	v.nonNegDur(c.Retry.Deadline, "client.deadline", "deadline", "the overall deadline of one request across its attempts (0: none)")
	if v.present("client.retry") {
		v.retry(&c.Retry)
	}
	if t := c.Tracers; t != nil && v.present("client.tracers") {
		v.errorf(t.Rate <= 0, "client.tracers.rate", "Value out of range", "rate is probes per second and must be greater than zero. Got %g.", t.Rate)
		v.errorf(t.Rate > MaxTracerRate, "client.tracers.rate", "Value out of range",
			"rate is probes per second and may be at most %d: tracers are a thin stream beside the load, not load. Got %g.", MaxTracerRate, t.Rate)
		v.positiveDur(t.Timeout, "client.tracers.timeout", "timeout", "the patience of one probe")
		v.warnf(t.Timeout > 0 && c.Timeout > 0 && t.Timeout <= c.Timeout, "client.tracers.timeout", "Tracer timeout too short",
			"Tracers measure the queue wait while normal attempts time out, so their timeout (%s) should be well above the client timeout (%s), e.g. 60s.",
			t.Timeout, c.Timeout)
	}
}

func (v *validator) retry(r *retry.Policy) {
	v.errorf(r.MaxRetries < 0 || r.MaxRetries > MaxRetries, "client.retry.max_retries", "Value out of range",
		"max_retries is R, the retries after the first attempt (A = R + 1), and must be from 0 to %d. Got %d.", MaxRetries, r.MaxRetries)
	v.warnf(r.On == 0 && r.MaxRetries > 0, "client.retry.on", "Nothing is retried",
		"on is empty, so no outcome is retried and max_retries = %d has no effect. Retry timeouts with on = [\"timeout\"].", r.MaxRetries)
	if r.Budget != nil {
		v.fraction(*r.Budget, false, "client.retry.budget", "budget", "β, retries as a fraction of first attempts")
	}
	v.positiveDur(r.BudgetWindow, "client.retry.budget_window", "budget_window", "the window over which the budget is counted")
	if tb := r.TokenBucket; tb != nil && v.present("client.retry.token_bucket") {
		const p = "client.retry.token_bucket."
		v.errorf(tb.Capacity <= 0, p+"capacity", "Value out of range", "capacity is the tokens of a full bucket and must be greater than zero. Got %g.", tb.Capacity)
		v.errorf(tb.RetryCost < 0, p+"retry_cost", "Value out of range", "retry_cost must not be negative. Got %g.", tb.RetryCost)
		v.errorf(tb.TimeoutCost < 0, p+"timeout_cost", "Value out of range", "timeout_cost must not be negative. Got %g.", tb.TimeoutCost)
		v.errorf(tb.SuccessRefund < 0, p+"success_refund", "Value out of range", "success_refund must not be negative. Got %g.", tb.SuccessRefund)
	}
	if !v.present("client.retry.backoff") {
		return
	}
	b := &r.Backoff
	const p = "client.retry.backoff."
	v.nonNegDur(b.Base, p+"base", "base", "the constant delay, or the first exponential one")
	v.positiveDur(b.Max, p+"max", "max", "the cap on the exponential delay")
	if b.Kind == vocab.BackoffExponential || (b.Kind == vocab.BackoffConstant && v.d.src.has(p+"max")) {
		ok := v.d.src.ok(p+"base") && b.Base >= 0
		v.errorf(ok && b.Max > 0 && b.Max < b.Base, p+"max", "Backoff max below base",
			"The backoff cap max (%s) is shorter than its base delay (%s): every delay would be cut to max. Raise max or lower base.", b.Max, b.Base)
	}
}

func (v *validator) layers() {
	seen := map[string]int{}
	for i := range v.s.Layers {
		l := &v.s.Layers[i]
		p := fmt.Sprintf("layer[%d]", i)
		if !v.present(p) {
			continue
		}
		v.unique(seen, "layer", l.Name, i, "retry layer")
		v.errorf(l.Name == "", p+".name", "Invalid layer name", "A layer needs a non-empty name, such as \"gateway\" or \"mesh\".")
		v.errorf(l.MaxRetries < 0 || l.MaxRetries > MaxRetries, p+".max_retries", "Value out of range",
			"max_retries is this layer's retries after its first try and must be from 0 to %d. Got %d.", MaxRetries, l.MaxRetries)
		if l.Budget != nil {
			v.fraction(*l.Budget, false, p+".budget", "budget", "this layer's β, retries as a fraction of its first tries")
		}
		v.fraction(l.RetryProbability, true, p+".retry_probability", "retry_probability", "r, the chance that a failure is retried")
		v.nonNegDur(l.Timeout, p+".timeout", "timeout", "the layer's own per-try timeout (0: unknown)")
	}
}

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

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

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

// unique reports a block (kind[i]) whose name an earlier block of the same
// kind already took, pointing at the first; what says what each block is.
func (v *validator) unique(seen map[string]int, kind, name string, i int, what string) {
	if j, dup := seen[name]; dup {
		v.errorf(true, fmt.Sprintf("%s[%d].name", kind, i), "Duplicate "+kind, "A %s named %q is already declared at %s; give each %s its own name.",
			kind, name, rangeLine(v.d.src.blocks[fmt.Sprintf("%s[%d]", kind, j)]), what)
		return
	}
	seen[name] = i
}
