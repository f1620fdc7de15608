package scenarios

import (
	"errors"

	"github.com/hashicorp/hcl/v2"

	"github.com/trigger-test/trigger/internal/tlsfiles"
)

// A tls block (in target, prometheus and stop_when) names PEM files, as
// tlsfiles.Files holds them: attribute names are the snake_case of its
// fields. Relative paths are read from the scenario's folder, as data
// files are, and only from there or a folder the operator allowed
// (fileAccess); each file must be a regular file of at most
// tlsfiles.MaxFileBytes, checked when the scenario is read.
var tlsSchema = &hcl.BodySchema{Attributes: attrs("ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify")}

// decodeTLS decodes the optional tls block of b (the block at path); nil
// when there is none.
func (d *decoder) decodeTLS(b *body, path string) *tlsfiles.Files {
	blk := b.one("tls", false, "")
	if blk == nil {
		return nil
	}
	t := d.open("tls", path+".tls", blk.Body, blk.DefRange, b.childSchema("tls"))
	return &tlsfiles.Files{
		CAFile:             d.tlsFile(t, "ca_file"),
		CertFile:           d.tlsFile(t, "cert_file"),
		KeyFile:            d.tlsFile(t, "key_file"),
		ServerName:         t.str("server_name", ""),
		InsecureSkipVerify: t.boolean("insecure_skip_verify", false),
	}
}

// tlsFile reads attribute name of a tls block, a file's path, and checks
// the file: within the folders the scenario may read, a regular file (a
// FIFO or /dev/zero is refused at once, unread) and small enough. It
// returns the path made absolute against the scenario's folder, which the
// run reads again when it sets TLS up (tlsfiles.Files.Load).
func (d *decoder) tlsFile(t *body, name string) string {
	file := t.str(name, "")
	if file == "" {
		return ""
	}
	path := d.files.path(file)
	f, err := d.files.open(file)
	if err == nil {
		err = tlsfiles.CheckOpened(f, path)
		f.Close()
	}
	switch {
	case errors.Is(err, ErrOutsideFolder):
		t.fail(name, "TLS file outside the scenario's folder", "%s", err)
		return ""
	case err != nil:
		t.fail(name, "Unusable TLS file", "cannot read %s: %s", path, unwrapPath(err))
		return ""
	}
	return path
}
