package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
)

// TestGreeterProtoset keeps testdata/good/greeter.protoset, the
// descriptor set the gRPC test scenarios name, what grpcdesctest.Set
// builds (rewrite it with go test ./scenarios -run TestGreeterProtoset
// -update): never protoc's.
func TestGreeterProtoset(t *testing.T) {
	const path = "testdata/good/greeter.protoset"
	if *update {
		if err := os.WriteFile(path, grpcdesctest.Set(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, grpcdesctest.Set()) {
		t.Fatalf("%s is not grpcdesctest.Set() (%v): rerun with -update", path, err)
	}
}

// TestDecodeGRPC: a gRPC target decodes with its method, message (per-
// request values as markers), descriptor set and the method's input type;
// Mix carries the call; the host is in Touches as the load's, the set in
// its files.
func TestDecodeGRPC(t *testing.T) {
	s, err := Load("testdata/good/grpc.hcl", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := s.Target.GRPC
	if g == nil || g.Method != "helloworld.Greeter/SayHello" || g.DescriptorSet != filepath.Join("testdata/good", "greeter.protoset") || g.Reflection {
		t.Fatalf("GRPC = %+v", g)
	}
	if g.Input == nil || g.Input.FullName() != "helloworld.HelloRequest" {
		t.Errorf("Input = %v", g.Input)
	}
	if !strings.Contains(g.Message, `"name":"trigger-`) || !strings.Contains(g.Message, "\ue000") {
		t.Errorf("Message = %q, want the name with request.id's marker", g.Message)
	}
	if mix := s.Target.Mix(); len(mix) != 1 || mix[0].GRPC != g || mix[0].URL != "grpc://127.0.0.1:9090" {
		t.Errorf("Mix = %+v", mix)
	}
	if s.Target.Headers["x-team"] != "checkout" {
		t.Errorf("headers = %v", s.Target.Headers)
	}
	hosts := s.Touches.Hosts
	if len(hosts) == 0 || hosts[0].Origin != "grpc://127.0.0.1:9090" || hosts[0].For != "load" {
		t.Errorf("Touches.Hosts = %+v", hosts)
	}
	found := false
	for _, f := range s.Touches.Files {
		found = found || f.For == "target.grpc descriptor_set"
	}
	if !found {
		t.Errorf("Touches.Files = %+v, want the descriptor set", s.Touches.Files)
	}
	if err := CheckSends(s); err != nil {
		t.Error(err)
	}
}

// TestDecodeGRPCReflectionAndMix: with reflection the scenario decodes
// without descriptors (Input nil); a mix holds HTTP and gRPC requests,
// each gRPC one told where the types come from.
func TestDecodeGRPCReflectionAndMix(t *testing.T) {
	src, err := os.ReadFile("testdata/good/grpc.hcl")
	if err != nil {
		t.Fatal(err)
	}
	refl := strings.Replace(string(src), `descriptor_set = "greeter.protoset"`, `reflection     = true`, 1)
	s, err := Parse("testdata/good/grpc.hcl", []byte(refl), nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Target.GRPC; !g.Reflection || g.Input != nil || g.DescriptorSet != "" {
		t.Errorf("reflection: GRPC = %+v", g)
	}
	if h := s.Touches.Hosts; len(h) != 2 || h[1] != (HostUse{Origin: "grpc://127.0.0.1:9090", For: "the message types (gRPC reflection)"}) {
		t.Errorf("reflection: Touches.Hosts = %+v, want the reflection service named", h)
	}
	mix := strings.Replace(string(src), `  url         = "grpc://127.0.0.1:9090"
`, "", 1)
	mix = strings.Replace(mix, `    method         = "helloworld.Greeter/SayHello"
`, "", 1)
	mix = strings.Replace(mix, `    message        = jsonencode({ name = "trigger-${request.id}", times = request.seq })
`, "", 1)
	mix = strings.Replace(mix, "  headers", `  request "hello" {
    url  = "grpc://127.0.0.1:9090"
    grpc {
      method  = "helloworld.Greeter/SayHello"
      message = jsonencode({ name = "a" })
    }
  }
  request "web" { url = "http://127.0.0.1:8080/" }
  headers`, 1)
	s, err = Parse("testdata/good/grpc.hcl", []byte(mix), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, mix)
	}
	r := s.Target.Requests
	if len(r) != 2 || r[0].GRPC == nil || r[0].GRPC.Input == nil || r[0].GRPC.DescriptorSet == "" || r[1].GRPC != nil {
		t.Errorf("requests = %+v", r)
	}
}

// TestGRPCDescriptorSetOutsideFolder: a descriptor set outside the
// scenario's folder is refused unread, as a data file is, unless
// --allow-files allows its folder.
func TestGRPCDescriptorSetOutsideFolder(t *testing.T) {
	src, err := os.ReadFile("testdata/good/grpc.hcl")
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	set := filepath.Join(other, "g.protoset")
	if err := os.WriteFile(set, grpcdesctest.Set(), 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `"greeter.protoset"`, `"`+set+`"`, 1)
	_, err = Parse(filepath.Join(t.TempDir(), "s.hcl"), []byte(text), nil)
	if err == nil || !strings.Contains(err.Error(), "Descriptor set outside the scenario's folder") {
		t.Errorf("Parse = %v, want the set refused", err)
	}
	s, err := ParseWith(filepath.Join(t.TempDir(), "s.hcl"), []byte(text), Options{AllowFiles: []string{other}})
	if err != nil || s.Target.GRPC.Input == nil {
		t.Errorf("with --allow-files: %v", err)
	}
}

// A message computed from a sensitive variable that does not fit is an
// error that does not show the secret (protojson's error quotes the
// value), and the secret is listed as sent to the gRPC host.
func TestGRPCMessageSecretRedacted(t *testing.T) {
	src, err := os.ReadFile("testdata/good/grpc.hcl")
	if err != nil {
		t.Fatal(err)
	}
	text := "variable \"token\" {\n  default   = \"s3cr3t-value\"\n  sensitive = true\n}\n" +
		strings.Replace(string(src), `jsonencode({ name = "trigger-${request.id}", times = request.seq })`, `jsonencode({ name = var.token, times = var.token })`, 1)
	_, err = Parse("testdata/good/grpc.hcl", []byte(text), nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse = %v", err)
	}
	var buf bytes.Buffer
	if err := e.Render(&buf, 100, false); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "s3cr3t-value") || !strings.Contains(out, "Message does not fit the method") {
		t.Errorf("diagnostics show the secret or miss the error:\n%s", out)
	}
	ok := strings.Replace(text, `times = var.token`, `times = 1`, 1)
	s, err := Parse("testdata/good/grpc.hcl", []byte(ok), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range s.Touches.Secrets {
		found = found || (u.Origin == "grpc://127.0.0.1:9090" && strings.Contains(u.As, "grpc.message"))
	}
	if !found {
		t.Errorf("Touches.Secrets = %+v, want the message's secret sent to the gRPC host", s.Touches.Secrets)
	}
}
