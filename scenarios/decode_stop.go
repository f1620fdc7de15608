package scenarios

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// decodeStopWhen decodes the i-th stop_when block.
func (d *decoder) decodeStopWhen(i int, blk *hcl.Block) StopCondition {
	path := fmt.Sprintf("stop_when[%d]", i)
	b := d.open("stop_when", path, blk.Body, blk.DefRange, stopWhenSchema)
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
	if ab := b.one("auth", false, ""); ab != nil {
		c.Auth = d.decodeAuth(ab, path+".auth")
	}
	if tb := b.one("tls", false, ""); tb != nil {
		c.TLS = d.decodeTLS(tb, path+".tls")
	}
	return c
}

// decodeAuth decodes an auth block (of prometheus or stop_when) at path.
func (d *decoder) decodeAuth(blk *hcl.Block, path string) *PrometheusAuth {
	a := d.open("auth", path, blk.Body, blk.DefRange, authSchema)
	return &PrometheusAuth{
		BearerTokenEnv: a.str("bearer_token_env", ""),
		UsernameEnv:    a.str("username_env", ""),
		PasswordEnv:    a.str("password_env", ""),
	}
}

// decodeTLS decodes a tls block (of prometheus or stop_when) at path.
func (d *decoder) decodeTLS(blk *hcl.Block, path string) *PrometheusTLS {
	t := d.open("tls", path, blk.Body, blk.DefRange, tlsSchema)
	return &PrometheusTLS{
		CAFile:             t.str("ca_file", ""),
		CertFile:           t.str("cert_file", ""),
		KeyFile:            t.str("key_file", ""),
		ServerName:         t.str("server_name", ""),
		InsecureSkipVerify: t.boolean("insecure_skip_verify", false),
	}
}
