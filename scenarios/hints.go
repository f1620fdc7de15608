package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Hints: what a diagnostic adds when the edit distance of closest finds
// nothing near, but the mistake is a common one whose fix is known: a
// credential written where its environment variable's name belongs, an
// attribute of a sub-block written in the block around it, a status code
// where retry.on wants its class, a protocol or a duration unit spelt as
// elsewhere. Each keeps hcl's wording and adds a "Did you mean" with why.

// secretHint is why a scenario names environment variables for a
// Prometheus's credentials.
const secretHint = "A scenario holds no secret: it names the environment variable that holds one, and the run reads its value from its environment (a scenario is shared, reviewed and committed; the environment is the operator's)."

// accessHints are the prometheus and stop_when blocks' hints: credentials
// go in an auth block, by their environment variables' names.
var accessHints = map[string]string{
	"bearer_token": `Did you mean bearer_token_env, in an auth block: auth { bearer_token_env = "PROM_TOKEN" }? ` + secretHint,
	"token":        `Did you mean bearer_token_env, in an auth block: auth { bearer_token_env = "PROM_TOKEN" }? ` + secretHint,
	"username":     `Did you mean username_env, in an auth block: auth { username_env = "PROM_USER"  password_env = "PROM_PASSWORD" }? ` + secretHint,
	"password":     `Did you mean password_env, in an auth block: auth { username_env = "PROM_USER"  password_env = "PROM_PASSWORD" }? ` + secretHint,
	"basic_auth":   `Did you mean an auth block: auth { username_env = "PROM_USER"  password_env = "PROM_PASSWORD" }? ` + secretHint,
}

// authHints are the auth block's: the names without their _env.
var authHints = map[string]string{
	"bearer_token": `Did you mean bearer_token_env = "PROM_TOKEN"? ` + secretHint,
	"token":        `Did you mean bearer_token_env = "PROM_TOKEN"? ` + secretHint,
	"username":     `Did you mean username_env = "PROM_USER"? ` + secretHint,
	"password":     `Did you mean password_env = "PROM_PASSWORD"? ` + secretHint,
}

// targetCredentialHint is the target block's hint for credentials.
const targetCredentialHint = `The target's credentials go in a header from a sensitive variable: headers = { Authorization = "Bearer ${var.token}" }, with variable "token" { sensitive = true } given by --var.`

// attemptsHint is retry's hint for a count of attempts.
const attemptsHint = "Did you mean max_retries? It counts the retries after the first attempt, so max_attempts = 3 is max_retries = 2."

// retryOnHint is retry's hint for a list of statuses.
const retryOnHint = `Did you mean on? It lists the outcome classes retried, e.g. on = ["timeout", "connect", "5xx", "503"].`

// nameHints are, by the schema of the block they are written in, hints
// for names the block does not take.
var nameHints = map[*hcl.BodySchema]map[string]string{
	prometheusSchema: accessHints,
	stopWhenSchema:   accessHints,
	authSchema:       authHints,
	targetSchema: {
		"auth":          targetCredentialHint,
		"bearer_token":  targetCredentialHint,
		"token":         targetCredentialHint,
		"timeout":       `Did you mean the clients' timeout? It is client { timeout = "1s" }, the patience of one attempt.`,
		"host":          `Did you mean allow_hosts? The URL names the host; allow_hosts lists the hosts a run may send to.`,
		"max_retries":   "Did you mean client { retry { max_retries = 2 } }? The clients' retries are the client block's.",
		"max_in_flight": "Did you mean client { max_in_flight = 20000 }?",
	},
	variableSchema: {
		"type": `A variable's type is its default's (number, string, bool, list or map): variable "port" { default = 8080 } is a number, and --var port=8081 is converted to it.`,
	},
	retrySchema: {
		"max":               `Did you mean max_retries, the retries after the first attempt (max_retries = 3)? A max delay between retries is the backoff's: backoff { kind = "exponential"  max = "10s" }.`,
		"retries":           "Did you mean max_retries? It counts the retries after the first attempt.",
		"attempts":          attemptsHint,
		"max_attempts":      attemptsHint,
		"retry_on":          retryOnHint,
		"retry_on_status":   retryOnHint,
		"status_codes":      retryOnHint,
		"retryable_status":  retryOnHint,
		"retryable_codes":   retryOnHint,
		"timeout":           `Did you mean the client's timeout? It is client { timeout = "1s" }, each attempt's patience, retries included; client { deadline = "3s" } bounds all the attempts of one request.`,
		"per_try_timeout":   `Did you mean the client's timeout? It is client { timeout = "1s" }, each attempt's patience, retries included.`,
		"jitter":            `Did you mean backoff { jitter = "full" }? Jitter randomises the backoff's delay.`,
		"max_retries_total": "Did you mean budget? It bounds all the clients' retries as a fraction of their first attempts, e.g. budget = 0.1.",
	},
}

// unsupportedRE reads the name out of hcl's "Unsupported argument" and
// "Unsupported block type" details.
var unsupportedRE = regexp.MustCompile(`^(?:An argument named|Blocks of type) ("(?:[^"\\]|\\.)*") (?:is|are) not expected here\.`)

// hintUnsupported adds to hcl's diagnostics for the names a block of
// schema does not take what was probably meant, where hcl had no "Did you
// mean": a hint of nameHints, else the sub-block that takes the name
// (max_retries written in client belongs in its retry block). raw is the
// block's body; the value of a credential written in the wrong place is
// masked in the source lines shown.
func (d *decoder) hintUnsupported(schema *hcl.BodySchema, raw hcl.Body, diags hcl.Diagnostics) {
	for _, diag := range diags {
		if diag.Summary != "Unsupported argument" && diag.Summary != "Unsupported block type" {
			continue
		}
		m := unsupportedRE.FindStringSubmatch(diag.Detail)
		if m == nil {
			continue
		}
		name, err := strconv.Unquote(m[1])
		if err != nil {
			continue
		}
		if hint := nameHint(schema, name, diag.Summary == "Unsupported block type"); hint != "" && !strings.Contains(diag.Detail, "Did you mean") {
			diag.Detail += " " + hint
		}
		if _, secret := accessHints[name]; secret && name != "basic_auth" {
			if sb, ok := raw.(*hclsyntax.Body); ok && sb.Attributes[name] != nil {
				d.masks = append(d.masks, mask{rng: sb.Attributes[name].Expr.Range()})
			}
		}
	}
}

// nameHint is the hint for name written in a block of schema, as an
// attribute or, when block is true, as a block: its own, or the one or two
// sub-blocks that take it (max_retries written in client belongs in its
// retry block).
func nameHint(schema *hcl.BodySchema, name string, block bool) string {
	if h := nameHints[schema][name]; h != "" && !block {
		return h
	}
	var in []string
	for typ, child := range nestedSchemas[schema] {
		for _, a := range child.Attributes {
			if a.Name == name && !block {
				in = append(in, typ)
			}
		}
		for _, h := range child.Blocks {
			if h.Type == name && block {
				in = append(in, typ)
			}
		}
	}
	if len(in) == 0 || len(in) > 2 {
		return ""
	}
	slices.Sort(in)
	what, write := "an attribute", name+" = …"
	if block {
		what, write = "a block", name+" { … }"
	}
	where := " inside this one"
	if schema == fileSchema {
		where = ""
	}
	if len(in) == 2 {
		return fmt.Sprintf("Did you mean %s { %s } or %s { %s }? %s is %s of those blocks%s.", in[0], write, in[1], write, name, what, where)
	}
	return fmt.Sprintf("Did you mean %s { %s }? %s is %s of the %s block%s.", in[0], write, name, what, in[0], where)
}

// durationHint is the " Did you mean …?" of a value that is not a Go
// duration but reads as one: a bare number ("2": seconds), a unit in
// capitals ("2S", "500MS"), spaces ("2 s"), or a unit's word ("2sec",
// "5 minutes", "1d"); "" when nothing parses.
func durationHint(s string) string {
	t := strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return fmt.Sprintf(" A bare number has no unit: did you mean \"%gs\"?", f)
	}
	var b strings.Builder
	rest := strings.ToLower(strings.Join(strings.Fields(t), ""))
	if rest == "" {
		return ""
	}
	for rest != "" {
		m := durationPartRE.FindStringSubmatch(rest)
		if m == nil {
			return ""
		}
		unit, ok := durationUnits[m[2]]
		if !ok {
			return ""
		}
		num := m[1]
		if unit == "d" {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return ""
			}
			num, unit = strconv.FormatFloat(f*24, 'f', -1, 64), "h"
		}
		b.WriteString(num + unit)
		rest = rest[len(m[0]):]
	}
	want := b.String()
	if _, err := time.ParseDuration(want); err != nil || want == s {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q? Units are lower case and come right after the number.", want)
}

// durationPartRE is one number and its unit's word.
var durationPartRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([a-zµμ]+)`)

// durationUnits maps the words of time units to Go's ("d": days, made
// hours).
var durationUnits = map[string]string{
	"ns": "ns", "nsec": "ns", "nanosecond": "ns", "nanoseconds": "ns",
	"us": "us", "µs": "us", "μs": "us", "usec": "us", "microsecond": "us", "microseconds": "us",
	"ms": "ms", "msec": "ms", "msecs": "ms", "millis": "ms", "millisecond": "ms", "milliseconds": "ms",
	"s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
	"m": "m", "min": "m", "mins": "m", "minute": "m", "minutes": "m",
	"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
	"d": "d", "day": "d", "days": "d",
}

// enumAliases are, by the kind of value (enumValue's what), spellings of
// a value used elsewhere, with the name a scenario gives it (compared in
// lower case).
var enumAliases = map[string]map[string]string{
	"protocol": {
		"http2": "h2", "http/2": "h2", "http/2.0": "h2", "http2.0": "h2", "h2c": "h2", "http_2": "h2", "2": "h2", "2.0": "h2",
		"http": "http1", "http/1.1": "http1", "http1.1": "http1", "http/1": "http1", "http/1.0": "http1", "h1": "http1",
		"http_1": "http1", "1.1": "http1", "1": "http1",
	},
}

// enumHint is the " Did you mean …?" of an unknown value name of kind
// what, one of names: an alias's name with what it is, a status code's
// outcome class, else the closest name.
func enumHint(what, name string, names []string) string {
	low := strings.ToLower(strings.TrimSpace(name))
	if a, ok := enumAliases[what][low]; ok && contains(names, a) {
		return fmt.Sprintf(" Did you mean %q? That is how a scenario spells it.", a)
	}
	if what == "outcome class" {
		if h := outcomeHint(low); h != "" {
			return h
		}
	}
	return didYouMean(name, names)
}

// outcomeHint is the hint for a name in client.retry.on that is a status
// code or a word for a class or for every class.
func outcomeHint(low string) string {
	if code, err := strconv.Atoi(low); err == nil && code >= 100 && code <= 599 {
		switch {
		case code == 503, code == 429:
			return "" // the class's own name
		case code == 401 || code == 403:
			return fmt.Sprintf(" Did you mean \"auth\"? A %d is in the class \"auth\" (401 and 403: credentials refused); on names classes, not statuses.", code)
		case code >= 500:
			return fmt.Sprintf(" Did you mean \"5xx\"? A %d is in the class \"5xx\" (every 5xx but 503, which is \"503\"); on names classes, not statuses.", code)
		case code >= 400:
			return fmt.Sprintf(" Did you mean \"4xx\"? A %d is in the class \"4xx\" (every 4xx but 429, 401 and 403); on names classes, not statuses.", code)
		default:
			return fmt.Sprintf(" A %d is no failure to retry unless target.ok_status leaves it out; it is then in the class \"other\".", code)
		}
	}
	switch low {
	case "max", "all", "any", "*", "every", "everything", "errors", "failures":
		return ` There is no such class: on lists the classes retried one by one (every failure: on = ["timeout", "connect", "5xx", "503", "429", "4xx", "auth", "other"]), and how many times is max_retries, a number.`
	case "timeouts", "deadline", "timed_out":
		return ` Did you mean "timeout"?`
	case "connection", "connect_error", "connection_error", "refused", "reset", "econnrefused", "econnreset":
		return ` Did you mean "connect"? It is a failure to connect, or a connection that failed before any response.`
	case "service_unavailable":
		return ` Did you mean "503"?`
	case "throttled", "throttling", "rate_limited", "too_many_requests":
		return ` Did you mean "429"?`
	case "5xx_or_503", "server_error", "server_errors":
		return ` Did you mean "5xx" and "503"? "5xx" is every 5xx but 503.`
	}
	return ""
}

// numberHint is the hint of number attribute name given a string that is
// no number (shown as given unless it is computed from a secret):
// max_retries = "max" says there is no such count.
func numberHint(name, given string, secret bool) string {
	quoted := ""
	if !secret {
		quoted = fmt.Sprintf(" %q is not one:", given)
	}
	if name == "max_retries" {
		return fmt.Sprintf(" max_retries is the number of retries after the first attempt, from 0 to %d, without quotes;%s write the count you mean, e.g. max_retries = 3.", MaxRetries, quoted)
	}
	return fmt.Sprintf(" %s takes a number, without quotes;%s write the number itself.", name, quoted)
}
