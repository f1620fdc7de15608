package scenarios

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/trigger-test/trigger/internal/queryshape"
	"github.com/trigger-test/trigger/internal/tlsfiles"
)

// StopCondition is one brake of a run (block `stop_when "NAME"`): a PromQL
// expression evaluated every second from the preflight on; the run stops
// its load when the expression returns a non-empty result, or when it
// cannot be evaluated (a brake that cannot be checked is not a brake).
type StopCondition struct {
	// Name is the block's label, unique among the scenario's conditions.
	Name string
	// Query is the PromQL expression; any sample in its result fires it
	// (write "burn_rate > 10", not "burn_rate").
	Query string
	// Address is where Query is evaluated: "" for the run's own
	// Prometheus (embedded or remote), else the base URL of another
	// Prometheus HTTP API.
	Address string
	// Timeout bounds one evaluation; default 2s. An evaluation that does
	// not answer within it stops the run.
	Timeout time.Duration
	// Auth and TLS are for Address (nil: none); with Address "" the run's
	// Prometheus block's own are used.
	Auth *PrometheusAuth
	TLS  *tlsfiles.Files
}

// DefaultStopTimeout is stop_when.timeout, per evaluation.
const DefaultStopTimeout = 2 * time.Second

// stopWhenSchema is a stop_when block's (its auth and tls sub-blocks are
// the prometheus block's): attribute names are the snake_case of
// StopCondition's fields.
var stopWhenSchema = &hcl.BodySchema{
	Attributes: attrs("query", "address", "timeout"),
	Blocks:     blocks("auth", "tls"),
}

// decodeStopWhen decodes the i-th stop_when block.
func (d *decoder) decodeStopWhen(i int, blk *hcl.Block) StopCondition {
	path := fmt.Sprintf("stop_when[%d]", i)
	b := d.open("stop_when", path, blk.Body, blk.DefRange, schemaOf("stop_when"))
	d.src.elems[path+".name"] = blk.LabelRanges[0]
	if !d.checkName(blk, "stop_when", "Invalid stop_when name", "names the brake in the run's log and report") {
		d.src.failed[path+".name"] = true
	}
	c := StopCondition{
		Name:    blk.Labels[0],
		Query:   b.str("query", ""),
		Address: b.str("address", ""),
		Timeout: b.duration("timeout", DefaultStopTimeout),
	}
	b.require("query", `the PromQL expression any sample of which stops the run, e.g. query = "slo:burn_rate:ratio_1h > 10".`)
	c.Auth, c.TLS = d.decodeAccess(b, path)
	return c
}

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
	v.queryCost(q, path)
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
