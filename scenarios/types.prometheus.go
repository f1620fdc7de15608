package scenarios

import "time"

// Prometheus says where the run reads the service's metrics (block
// "prometheus"). Queries are PromQL instant-vector expressions evaluated over
// the run; an empty query is not used.
type Prometheus struct {
	// Address is "embedded" (default) for the in-process server, or the base
	// URL of a Prometheus HTTP API.
	Address        string
	Scrape         []string      // embedded mode: URLs of /metrics endpoints to scrape
	ScrapeInterval time.Duration // embedded mode; default 1s
	Timeout        time.Duration // per query; default 10s

	Ingress       string // attempts per second arriving at the service (required for A_fail)
	FirstAttempts string // first attempts per second arriving at the service; optional
	Served        string // requests per second the service finished
	Abandoned     string // served requests whose client had gone (retry debt); optional
	Wait          string // queue wait in seconds; optional
	Pods          string // ready replicas; optional

	Auth *PrometheusAuth // nil when the block is absent
	TLS  *PrometheusTLS  // nil when the block is absent
}

// PrometheusAuth names environment variables that hold credentials; the
// credentials themselves never appear in a scenario.
type PrometheusAuth struct {
	BearerTokenEnv string
	UsernameEnv    string
	PasswordEnv    string
}

// PrometheusTLS configures TLS to a remote Prometheus.
type PrometheusTLS struct {
	CAFile             string
	CertFile           string
	KeyFile            string
	ServerName         string
	InsecureSkipVerify bool
}
