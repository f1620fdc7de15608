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
	c.Auth, c.TLS = d.decodeAccess(b, path)
	return c
}

// decodeAccess decodes the optional auth and tls blocks of b (a prometheus
// or stop_when block at path).
func (d *decoder) decodeAccess(b *body, path string) (*PrometheusAuth, *PrometheusTLS) {
	var auth *PrometheusAuth
	var tls *PrometheusTLS
	if blk := b.one("auth", false, ""); blk != nil {
		a := d.open("auth", path+".auth", blk.Body, blk.DefRange, authSchema)
		auth = &PrometheusAuth{
			BearerTokenEnv: a.str("bearer_token_env", ""),
			UsernameEnv:    a.str("username_env", ""),
			PasswordEnv:    a.str("password_env", ""),
		}
	}
	if blk := b.one("tls", false, ""); blk != nil {
		t := d.open("tls", path+".tls", blk.Body, blk.DefRange, tlsSchema)
		tls = &PrometheusTLS{
			CAFile:             t.str("ca_file", ""),
			CertFile:           t.str("cert_file", ""),
			KeyFile:            t.str("key_file", ""),
			ServerName:         t.str("server_name", ""),
			InsecureSkipVerify: t.boolean("insecure_skip_verify", false),
		}
	}
	return auth, tls
}
