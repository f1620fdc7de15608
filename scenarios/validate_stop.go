package scenarios

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/trigger-test/trigger/internal/queryshape"
)

// stopWhen checks the stop_when blocks: unique names, a query that parses
// as PromQL and returns an instant vector, an address that is "" or an
// http(s) base URL without credentials, and a timeout within bounds.
func (v *validator) stopWhen() {
	seen := map[string]int{}
	for i := range v.s.StopWhen {
		c := &v.s.StopWhen[i]
		p := fmt.Sprintf("stop_when[%d]", i)
		if !v.present(p) {
			continue
		}
		v.unique(seen, "stop_when", c.Name, i, "brake")
		if v.d.src.has(p + ".query") {
			v.stopQuery(c.Query, p+".query")
		}
		if c.Address != "" && !v.credentials(p+".address", c.Address, authHint) {
			u, err := url.Parse(c.Address)
			v.errorf(err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "", p+".address", "Invalid stop_when address",
				"address is \"\" for the run's own Prometheus, or the base URL of a Prometheus HTTP API such as \"https://prometheus.staging-eu:9090\"; %q is neither.",
				c.Address)
		}
		if v.d.src.has(p + ".timeout") {
			v.errorf(c.Timeout < MinStopTimeout || c.Timeout > MaxStopTimeout, p+".timeout", "Value out of range",
				"timeout bounds one evaluation of the query, and an evaluation that does not answer in time stops the run; it must be from %s to %s. Got %s.",
				MinStopTimeout, MaxStopTimeout, c.Timeout)
		}
		v.auth(c.Auth, p+".auth")
		if c.Address == "" && v.d.src.ok(p+".address") {
			v.warnf(c.Auth != nil, p+".auth", "Setting ignored",
				"auth applies to a stop_when with its own address; with address = \"\" the query goes to the run's Prometheus, with the prometheus block's auth.")
			v.warnf(c.TLS != nil, p+".tls", "Setting ignored",
				"tls applies to a stop_when with its own address; with address = \"\" the query goes to the run's Prometheus, with the prometheus block's tls.")
		}
	}
}

// stopQuery checks a stop_when query: not empty, valid PromQL, an instant
// vector (any sample of which fires the brake: a scalar would fire always
// or never).
func (v *validator) stopQuery(q, path string) {
	if strings.TrimSpace(q) == "" {
		v.errorf(true, path, "Empty query",
			"query is the PromQL expression any sample of which stops the run, such as \"slo:burn_rate:ratio_1h > 10\".")
		return
	}
	if len(q) > MaxQueryBytes {
		v.errorf(true, path, "Query too long",
			"The query is %d bytes; a query may be at most %d. Use a recording rule for a long expression.", len(q), MaxQueryBytes)
		return
	}
	expr, err := queryshape.Parser().ParseExpr(q)
	if err != nil {
		msg := err.Error()
		if v.d.src.sensitive[path] {
			msg = "the query is computed from a sensitive variable, so the parser's message is not shown"
		}
		v.errorf(true, path, "Invalid PromQL query",
			"The query does not parse: %s. A brake whose query cannot be evaluated would stop every run at once; fix the query, and try it in Prometheus' expression browser.", msg)
		return
	}
	if t := expr.Type(); t != parser.ValueTypeVector {
		v.errorf(true, path, "Query is not a vector",
			"A stop_when query must return an instant vector, whose samples fire the brake; this one returns a %s. Compare series with a threshold, such as \"slo:burn_rate:ratio_1h > 10\".", promTypeName(t))
	}
}

// promTypeName names a PromQL value type as Prometheus' documentation does.
func promTypeName(t parser.ValueType) string {
	switch t {
	case parser.ValueTypeMatrix:
		return "range vector"
	case parser.ValueTypeVector:
		return "instant vector"
	default:
		return string(t)
	}
}
