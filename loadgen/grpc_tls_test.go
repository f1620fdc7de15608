package loadgen

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/vocab"
)

// TestGRPCDriverTLS: a grpcs:// target is called over TLS with
// Config.TLS (a CA file to trust); the same server refuses plaintext.
func TestGRPCDriverTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	desc := testReqDesc(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&cert)), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		return stream.SendMsg(dynamicMsg(desc))
	}))
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)

	for _, scheme := range []string{"grpcs", "grpc"} {
		d := runDriver(t, Config{
			Request: Request{URL: scheme + "://" + ln.Addr().String(), GRPC: &GRPCCall{Method: testMethod, Input: desc}, Body: []byte(`{"id":"a"}`)},
			TLS:     &tlsfiles.Files{CAFile: ca},
			Stages:  []Stage{Constant(100*time.Millisecond, 50)}, Arrivals: vocab.Uniform,
			Timeout: 2 * time.Second,
		})
		tot := checkAccounting(t, d)
		ok := tot.FirstOutcomes[vocab.OutcomeOK]
		if tot.Sent == 0 || (scheme == "grpcs") != (ok == tot.Sent) || (scheme == "grpc" && ok != 0) {
			t.Errorf("%s: sent %d, outcomes %v", scheme, tot.Sent, tot.FirstOutcomes)
		}
	}
}

// A gRPC URL without a port is dialled at grpc's default port, 80 for
// grpc:// and 443 for grpcs://, as check and reflection dial it (one
// mapping, grpcdesc.Dial); the driver used to dial the bare host.
func TestGRPCPathDefaultPort(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"grpc://127.0.0.1", "passthrough:///127.0.0.1:80"},
		{"grpcs://127.0.0.1", "passthrough:///127.0.0.1:443"},
		{"grpc://127.0.0.1:9000", "passthrough:///127.0.0.1:9000"},
	} {
		req := Request{URL: tc.url, GRPC: &GRPCCall{Method: testMethod, Input: testReqDesc(t)}, Body: []byte(`{"id":"x"}`)}
		d, err := NewDriver(Config{Request: req, Stages: []Stage{Constant(100*time.Millisecond, 1)}, Timeout: time.Second})
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := d.path.(*grpcPath).target; got != tc.want {
			t.Errorf("%s: dials %s, want %s", tc.url, got, tc.want)
		}
	}
}
