package scenarios

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/vocab"
)

// Prometheus says where the run reads the service's metrics (block
// "prometheus"). Queries are PromQL instant-vector expressions evaluated over
// the run; an empty query is not used.
type Prometheus struct {
	// Address is "embedded" (default) for the in-process server, or the base
	// URL of a Prometheus HTTP API.
	Address string
	Scrape  []string // embedded mode: URLs of /metrics endpoints to scrape
	// ScrapeInterval is how often the embedded server scrapes (default
	// 1 s); for a remote server, the interval the plan and the run assume
	// until the run reads the server's own (ScrapeIntervalGiven).
	ScrapeInterval time.Duration
	// ScrapeIntervalGiven says the scenario set scrape_interval for a
	// remote server.
	ScrapeIntervalGiven bool
	Timeout             time.Duration // per query; default 10s

	Ingress       string // attempts per second arriving at the service (required for A_fail)
	FirstAttempts string // first attempts per second arriving at the service; optional
	Served        string // requests per second the service finished
	Abandoned     string // served requests whose client had gone (retry debt); optional
	Wait          string // queue wait in seconds; optional
	Pods          string // ready replicas; optional

	Auth *PrometheusAuth // nil when the block is absent
	TLS  *tlsfiles.Files // nil when the block is absent
}

// PrometheusAuth names environment variables that hold credentials; the
// credentials themselves never appear in a scenario.
type PrometheusAuth struct {
	BearerTokenEnv string
	UsernameEnv    string
	PasswordEnv    string
}

// Defaults of the prometheus block's attributes; those the embedded
// Prometheus also fills in are vocab's.
const (
	// DefaultScrapeInterval is prometheus.scrape_interval (embedded mode, 1 s).
	DefaultScrapeInterval = vocab.DefaultScrapeInterval
	// DefaultQueryTimeout is prometheus.timeout, per query.
	DefaultQueryTimeout = 10 * time.Second
)

// embeddedAddress is the prometheus.address of the in-process server, and
// its default.
var embeddedAddress = "embedded"

// The schemas of the prometheus block and of its auth and tls sub-blocks
// (a stop_when block has them too): attribute names are the snake_case of
// Prometheus', PrometheusAuth's and tlsfiles.Files' fields.
var (
	prometheusSchema = &hcl.BodySchema{
		Attributes: attrs("address", "scrape", "scrape_interval", "timeout",
			"ingress", "first_attempts", "served", "abandoned", "wait", "pods"),
		Blocks: blocks("auth", "tls"),
	}
	authSchema = &hcl.BodySchema{Attributes: attrs("bearer_token_env", "username_env", "password_env")}
)

// decodePrometheus decodes the prometheus block and its auth and tls
// sub-blocks.
func (d *decoder) decodePrometheus(blk *hcl.Block) *Prometheus {
	b := d.open("prometheus", "prometheus", blk.Body, blk.DefRange, schemaOf("prometheus"))
	p := &Prometheus{
		Address:        b.str("address", embeddedAddress),
		Scrape:         b.strList("scrape", nil),
		ScrapeInterval: b.duration("scrape_interval", DefaultScrapeInterval),
		Timeout:        b.duration("timeout", DefaultQueryTimeout),
		Ingress:        b.str("ingress", ""),
		FirstAttempts:  b.str("first_attempts", ""),
		Served:         b.str("served", ""),
		Abandoned:      b.str("abandoned", ""),
		Wait:           b.str("wait", ""),
		Pods:           b.str("pods", ""),
	}
	p.Auth, p.TLS = d.decodeAccess(b, "prometheus")
	return p
}

// decodeAccess decodes the optional auth and tls blocks of b (a prometheus
// or stop_when block at path).
func (d *decoder) decodeAccess(b *body, path string) (*PrometheusAuth, *tlsfiles.Files) {
	var auth *PrometheusAuth
	if blk := b.one("auth", false, ""); blk != nil {
		a := d.open("auth", path+".auth", blk.Body, blk.DefRange, b.childSchema("auth"))
		auth = &PrometheusAuth{
			BearerTokenEnv: a.str("bearer_token_env", ""),
			UsernameEnv:    a.str("username_env", ""),
			PasswordEnv:    a.str("password_env", ""),
		}
	}
	return auth, d.decodeTLS(b, path)
}

// prometheus checks the prometheus block: its address, scrape targets
// (within allow_hosts), intervals, queries and auth.
func (v *validator) prometheus() {
	p := v.s.Prometheus
	if p == nil || !v.present("prometheus") {
		return
	}
	embedded := p.Address == embeddedAddress
	p.ScrapeIntervalGiven = !embedded && v.d.src.has("prometheus.scrape_interval")
	addrOK := v.d.src.ok("prometheus.address")
	if !embedded && !v.credentials("prometheus.address", p.Address, authHint) {
		u, err := url.Parse(p.Address)
		bad := err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""
		addrOK = addrOK && !bad
		v.errorf(bad, "prometheus.address", "Invalid Prometheus address",
			"address is %q for the in-process Prometheus, or the base URL of a Prometheus HTTP API such as \"http://prometheus:9090\"; %q is neither.%s",
			embeddedAddress, p.Address, didYouMean(p.Address, []string{embeddedAddress}))
	}
	if addrOK && v.d.src.ok("prometheus.address") {
		v.warnf(!embedded && len(p.Scrape) > 0, "prometheus.scrape", "Scrape targets ignored",
			"scrape is used only with address = %q; a remote Prometheus at %q scrapes on its own schedule.", embeddedAddress, stripUserinfo(p.Address))
		v.warnf(embedded && len(p.Scrape) == 0, "prometheus", "Nothing to scrape",
			"The embedded Prometheus has no scrape targets, so every query will be empty. Add scrape = [\"http://HOST:PORT/metrics\"].")
		v.warnf(embedded && p.TLS != nil, "prometheus.tls", "TLS settings ignored",
			"tls applies to a remote Prometheus; the embedded one is in-process.")
	}
	for i, s := range p.Scrape {
		path := fmt.Sprintf("prometheus.scrape[%d]", i)
		if v.credentials(path, s, "the embedded Prometheus scrapes without any: serve the metrics without them, on an address only the run reaches") {
			continue
		}
		u, err := url.Parse(s)
		bad := err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""
		v.errorf(bad, path, "Invalid scrape target", "%q is not an http(s) URL of a /metrics endpoint, such as \"http://127.0.0.1:8080/metrics\".", s)
		t := &v.s.Target
		if bad || !v.present("target") || !v.d.src.ok("target.allow_hosts") || len(t.AllowHosts) == 0 {
			continue
		}
		v.errorf(!HostAllowed(t.AllowHosts, u.Hostname()), path, "Scrape target not allowed",
			"The scrape host %q is not in target.allow_hosts [%s]. A run reaches only the hosts allowed: add %q to allow_hosts, or scrape the service where it is allowed.",
			v.readable(u.Hostname()), strings.Join(quoted(t.AllowHosts), ", "), v.readable(NormalizeHost(u.Hostname())))
	}
	v.positiveDur(p.ScrapeInterval, "prometheus.scrape_interval", "scrape_interval", "how often the embedded Prometheus scrapes")
	v.errorf(p.ScrapeInterval > 0 && p.ScrapeInterval < MinScrapeInterval, "prometheus.scrape_interval", "Value out of range",
		"scrape_interval may be no shorter than %s: scraping more often loads the service it measures and the run's own Prometheus, and signals are no fresher than the service's own updates. Got %s.",
		MinScrapeInterval, p.ScrapeInterval)
	v.positiveDur(p.Timeout, "prometheus.timeout", "timeout", "the limit on one query")
	for _, q := range []struct{ name, text string }{
		{"ingress", p.Ingress}, {"first_attempts", p.FirstAttempts}, {"served", p.Served},
		{"abandoned", p.Abandoned}, {"wait", p.Wait}, {"pods", p.Pods},
	} {
		v.errorf(len(q.text) > MaxQueryBytes, "prometheus."+q.name, "Query too long",
			"The query is %d bytes; a query may be at most %d. Use a recording rule for a long expression.", len(q.text), MaxQueryBytes)
		if len(q.text) <= MaxQueryBytes {
			v.queryCost(q.text, "prometheus."+q.name)
		}
	}
	v.warnf(strings.TrimSpace(p.Ingress) == "", "prometheus", "No ingress query",
		"Without ingress (attempts per second arriving at the service) a run cannot measure A_fail, the amplification the service really suffers.")
	v.auth(p.Auth, "prometheus.auth")
}

// authHint says where credentials for a Prometheus go.
const authHint = "put them in an auth block, which names the environment variables that hold them"

// auth checks an auth block (of prometheus or stop_when) at path.
func (v *validator) auth(a *PrometheusAuth, path string) {
	if a == nil || !v.present(path) {
		return
	}
	v.errorf(a.BearerTokenEnv != "" && (a.UsernameEnv != "" || a.PasswordEnv != ""), path+".bearer_token_env",
		"Conflicting credentials", "Give either bearer_token_env or username_env and password_env, not both.")
	v.errorf(a.BearerTokenEnv == "" && (a.UsernameEnv == "") != (a.PasswordEnv == ""), path, "Incomplete credentials",
		"Basic authentication needs both username_env and password_env.")
}
