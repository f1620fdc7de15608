package runner

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/scenarios"
)

// testPKI is a CA made for one test, with a server certificate for
// 127.0.0.1 and a client certificate it signed, as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string
	caPool                    *x509.CertPool
	server                    tls.Certificate
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "trigger test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, usage x509.ExtKeyUsage, ip bool) ([]byte, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage},
			KeyUsage: x509.KeyUsageDigitalSignature}
		if ip {
			tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	write := func(name, kind string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pki := testPKI{caFile: write("ca.pem", "CERTIFICATE", caDER), caPool: x509.NewCertPool()}
	pki.caPool.AddCert(ca)
	srvDER, srvKey := leaf(2, x509.ExtKeyUsageServerAuth, true)
	pki.server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	cliDER, cliKey := leaf(3, x509.ExtKeyUsageClientAuth, false)
	keyDER, err := x509.MarshalECPrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	pki.certFile, pki.keyFile = write("client.pem", "CERTIFICATE", cliDER), write("client-key.pem", "EC PRIVATE KEY", keyDER)
	return pki
}

// startMTLSServer serves 200 on loopback over TLS, requiring a client
// certificate the test CA signed.
func startMTLSServer(t *testing.T, pki testPKI) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.server}, ClientAuth: tls.RequireAndVerifyClientCert,
		ClientCAs: pki.caPool, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// tlsScenario sends a little load to url with the given tls block, no
// spike that could trigger anything and no metrics; it is read as a file
// in the PEM files' folder, from which a scenario may read them.
func tlsScenario(t *testing.T, pki testPKI, url, tlsBlock string) *scenarios.Scenario {
	t.Helper()
	s, err := parseTLSScenario(pki, url, tlsBlock)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parseTLSScenario(pki testPKI, url, tlsBlock string) (*scenarios.Scenario, error) {
	src := `
scenario "mtls" { max_duration = "1m" }
target {
  url         = "` + url + `/work"
  allow_hosts = ["127.0.0.1"]
  ` + tlsBlock + `
}
client { timeout = "500ms" }
service { capacity = 1000 }
load {
  baseline = 20
  warmup   = "2s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
  observe = "3s"
}
recovery { hold = "1s" }
`
	return scenarios.Parse(filepath.Join(filepath.Dir(pki.caFile), "mtls.hcl"), []byte(src), nil)
}

// Mutual TLS: with the CA and a client certificate the server trusts the
// run sends its load; without the certificate, or without the CA, the
// preflight stops it before any load and says what to set.
func TestMutualTLSToTheTarget(t *testing.T) {
	skipShort(t)
	pki := newTestPKI(t)
	url := startMTLSServer(t, pki)

	res, err := runE2E(t, context.Background(), tlsScenario(t, pki, url,
		`tls {
    ca_file   = "`+pki.caFile+`"
    cert_file = "`+pki.certFile+`"
    key_file  = "`+pki.keyFile+`"
  }`))
	if errors.Is(err, ErrTargetTLS) || res == nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	var ok, failed float64
	for _, row := range res.Timeline {
		if row.Phase == analysis.PhaseWarmup {
			ok += row.FirstOK
			failed += row.FirstFailed()
		}
	}
	if ok == 0 || failed != 0 {
		t.Errorf("warmup over mutual TLS: %g first attempts ok, %g failed; want all ok", ok, failed)
	}

	for _, tc := range []struct {
		name, block, want string
	}{
		{"no client certificate", `tls { ca_file = "` + pki.caFile + `" }`, "client certificate"},
		{"no CA", `tls {
    cert_file = "` + pki.certFile + `"
    key_file  = "` + pki.keyFile + `"
  }`, "ca_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runE2E(t, context.Background(), tlsScenario(t, pki, url, tc.block))
			var re *Error
			if !errors.As(err, &re) || re.Kind != KindUsage || !strings.Contains(err.Error(), tc.want) || res != nil {
				t.Fatalf("err = %v (result %v); want a usage error naming %s, nothing sent", err, res != nil, tc.want)
			}
			t.Log(err)
		})
	}
	// A CA file that is not there is the scenario's error, before any run.
	if _, err := parseTLSScenario(pki, url, `tls { ca_file = "`+pki.caFile+`.missing" }`); err == nil || !strings.Contains(err.Error(), "Unusable TLS file") {
		t.Errorf("a missing ca_file: %v; want the scenario refused", err)
	}
}
