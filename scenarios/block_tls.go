package scenarios

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/internal/tlsfiles"
)

// A tls block (in target, prometheus and stop_when) names PEM files, as
// tlsfiles.Files holds them: attribute names are the snake_case of its
// fields. Relative paths are read from the working directory, as every
// other path a run reads.
var tlsSchema = &hcl.BodySchema{Attributes: attrs("ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify")}

// decodeTLS decodes the optional tls block of b (the block at path); nil
// when there is none.
func (d *decoder) decodeTLS(b *body, path string) *tlsfiles.Files {
	blk := b.one("tls", false, "")
	if blk == nil {
		return nil
	}
	t := d.open("tls", path+".tls", blk.Body, blk.DefRange, tlsSchema)
	return &tlsfiles.Files{
		CAFile:             t.str("ca_file", ""),
		CertFile:           t.str("cert_file", ""),
		KeyFile:            t.str("key_file", ""),
		ServerName:         t.str("server_name", ""),
		InsecureSkipVerify: t.boolean("insecure_skip_verify", false),
	}
}
