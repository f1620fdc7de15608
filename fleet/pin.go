package fleet

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"time"
)

// The coordinator serves its agents over TLS with a certificate it makes
// for the run, in memory (ECDSA P-256, self-signed), and the agents pin it:
// they are given its SHA-256 fingerprint out of band (CertEnv, or
// AgentConfig.CertSHA256) and refuse any other certificate. No CA is
// involved, so no name is checked: the fingerprint is the identity.

// CertEnv is the environment variable an agent reads the coordinator's
// certificate fingerprint from (hex SHA-256 of its DER).
const CertEnv = "TRIGGER_AGENT_CERT_SHA256"

// certValidity is how long a run's certificate is valid, from an hour
// before it was made (clocks of other machines may be behind).
const certValidity = 7 * 24 * time.Hour

// newRunCert makes a run's certificate for hosts (IP addresses or names,
// put in its subject alternative names for tools that look), and returns
// it with its fingerprint.
func newRunCert(hosts []string) (tls.Certificate, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "trigger coordinator"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if h == "" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, Fingerprint(der), nil
}

// Fingerprint is the SHA-256 of a certificate's DER bytes, lower-case hex.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// parseFingerprint reads a fingerprint as hex, upper or lower case, with
// or without colons between the bytes.
func parseFingerprint(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(s), ":", ""))
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("certificate fingerprint %q: want the 64 hex digits of a SHA-256", truncateText(s, 80))
	}
	return b, nil
}

// ErrCertMismatch: the coordinator presented a certificate other than the
// pinned one.
var ErrCertMismatch = errors.New("the coordinator's certificate is not the pinned one")

// pinnedTransport is an HTTP transport that speaks TLS 1.3 to the
// coordinator and accepts only the certificate whose SHA-256 is pin.
func pinnedTransport(pin string) (*http.Transport, error) {
	want, err := parseFingerprint(pin)
	if err != nil {
		return nil, err
	}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSHandshakeTimeout: time.Second,
		MaxIdleConns:        2,
		IdleConnTimeout:     Silence,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS13,
			// The chain and the name are not checked against a CA: the
			// pin, checked below, is the stricter test.
			InsecureSkipVerify: true,
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return ErrCertMismatch
				}
				sum := sha256.Sum256(raw[0])
				if !bytes.Equal(sum[:], want) {
					return ErrCertMismatch
				}
				return nil
			},
		},
	}, nil
}
