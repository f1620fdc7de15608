// Package tlsfiles is TLS set up from files in PEM format, as a scenario
// names them (a target's and a Prometheus server's tls blocks): the one
// place that loads a CA bundle and a client certificate into a
// *tls.Config, for the driver and the Prometheus client alike.
package tlsfiles

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// Files is a TLS setup by file name.
type Files struct {
	// CAFile is a bundle of CA certificates to trust instead of the
	// system's; "" = the system pool.
	CAFile string
	// CertFile and KeyFile are the client certificate and its key for
	// mutual TLS; both or neither.
	CertFile, KeyFile string
	// ServerName overrides the name checked against the server's
	// certificate; "" = the host of the address.
	ServerName string
	// InsecureSkipVerify disables verification of the server's
	// certificate (staging setups with self-signed certificates only).
	InsecureSkipVerify bool
}

// Load reads the files into a *tls.Config (TLS 1.2 at the least). An
// error names the file and what is wrong with it.
func (f Files) Load() (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         f.ServerName,
		InsecureSkipVerify: f.InsecureSkipVerify, //nolint:gosec // explicit user choice, documented
	}
	if f.CAFile != "" {
		pem, err := ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca_file %s: no PEM certificate in it", f.CAFile)
		}
		tc.RootCAs = pool
	}
	switch {
	case f.CertFile != "" && f.KeyFile != "":
		certPEM, err := ReadFile(f.CertFile)
		if err != nil {
			return nil, fmt.Errorf("tls cert_file: %w", err)
		}
		keyPEM, err := ReadFile(f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls key_file: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("tls client certificate %s and key %s: %w", f.CertFile, f.KeyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	case f.CertFile != "" || f.KeyFile != "":
		return nil, errors.New("tls cert_file and key_file go together: set both or neither")
	}
	return tc, nil
}
