package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// grpcScenario is a scenario calling the Greeter at url; source is its
// grpc block's descriptor_set or reflection line.
func grpcScenario(url, source, message string) string {
	return `scenario "grpc" {}
target {
  url         = "` + url + `"
  allow_hosts = ["127.0.0.1"]
  headers     = { "x-team" = "checkout" }
  grpc {
    method  = "helloworld.Greeter/SayHello"
    ` + source + `
    message = ` + message + `
  }
}
client { timeout = "1s" }
service { capacity = 200 }
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
`
}

// grpcTest converts src, written beside the Greeter's descriptor set.
func grpcTest(t *testing.T, src string) *Test {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greeter.protoset"), grpcdesctest.Set(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Parse(filepath.Join(dir, "s.hcl"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	test, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return test
}

// TestGRPCDriverRequest: a gRPC target becomes the driver's gRPC request:
// its URL, metadata, the message as its body (markers kept), the method
// as gRPC sends it and the input type from the descriptor set; its
// ResolveGRPC checks without a network, and plan's text names the call.
func TestGRPCDriverRequest(t *testing.T) {
	test := grpcTest(t, grpcScenario("grpc://127.0.0.1:9090", `descriptor_set = "greeter.protoset"`, `jsonencode({ name = request.id })`))
	r := test.Driver.Request
	if r.URL != "grpc://127.0.0.1:9090" || r.Header.Get("x-team") != "checkout" || r.GRPC == nil ||
		r.GRPC.Method != "/helloworld.Greeter/SayHello" || r.GRPC.Input == nil || r.GRPC.Input.FullName() != "helloworld.HelloRequest" {
		t.Fatalf("request %+v", r)
	}
	if want := `{"name":"` + vocab.PerRequestID.Marker() + `"}`; string(r.Body) != want {
		t.Errorf("body %q, want %q", r.Body, want)
	}
	text, err := test.ResolveGRPC(context.Background())
	if err != nil || !strings.Contains(text, "helloworld.Greeter/SayHello (helloworld.HelloRequest, from the descriptor set) at grpc://127.0.0.1:9090") {
		t.Errorf("ResolveGRPC = %q, %v", text, err)
	}
	if !test.HasGRPC() {
		t.Error("HasGRPC = false")
	}
	if got := GRPCText(test.Scenario); !strings.Contains(got, "helloworld.Greeter/SayHello at grpc://127.0.0.1:9090 (helloworld.HelloRequest from ") {
		t.Errorf("GRPCText = %q", got)
	}
	if http := newTest(t, "driver.hcl"); http.HasGRPC() || http.Driver.Request.GRPC != nil {
		t.Error("an HTTP target made a gRPC request")
	}
}

// TestResolveGRPCByReflection: with reflection the driver's request has
// no input type until ResolveGRPC fetches it from the server's reflection
// service; a message that does not fit, or a server without reflection,
// is an error naming what is wrong.
func TestResolveGRPCByReflection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr := grpcdesctest.Serve(t, grpcdesctest.ReflectionV1)
	test := grpcTest(t, grpcScenario("grpc://"+addr, `reflection = true`, `jsonencode({ name = "x", times = request.seq })`))
	if test.Driver.Request.GRPC.Input != nil {
		t.Fatal("Input set before ResolveGRPC")
	}
	if got := GRPCText(test.Scenario); !strings.Contains(got, "types by reflection") {
		t.Errorf("GRPCText = %q", got)
	}
	text, err := test.ResolveGRPC(ctx)
	if err != nil || !strings.Contains(text, "from reflection") {
		t.Fatalf("ResolveGRPC = %q, %v", text, err)
	}
	if in := test.Driver.Request.GRPC.Input; in == nil || in.FullName() != "helloworld.HelloRequest" {
		t.Errorf("Input = %v", in)
	}
	bad := grpcTest(t, grpcScenario("grpc://"+addr, `reflection = true`, `jsonencode({ nme = "x" })`))
	if _, err := bad.ResolveGRPC(ctx); err == nil || !strings.Contains(err.Error(), `unknown field "nme"; did you mean "name"?`) {
		t.Errorf("ResolveGRPC(nme) = %v", err)
	}
	none := grpcTest(t, grpcScenario("grpc://"+grpcdesctest.Serve(t, grpcdesctest.NoReflection), `reflection = true`, `"{}"`))
	if _, err := none.ResolveGRPC(ctx); err == nil || !strings.Contains(err.Error(), "no reflection service") {
		t.Errorf("ResolveGRPC without reflection = %v", err)
	}
}

// TestResolveGRPCMix: in a mix of HTTP and gRPC requests, each gRPC
// request becomes a gRPC call and ResolveGRPC fetches its types by
// reflection, the server once; the HTTP request stays HTTP.
func TestResolveGRPCMix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr := grpcdesctest.Serve(t, grpcdesctest.ReflectionV1)
	src := `scenario "mix" {}
target {
  allow_hosts = ["127.0.0.1"]
  grpc { reflection = true }
  request "hello" {
    weight = 3
    url    = "grpc://` + addr + `"
    grpc {
      method  = "helloworld.Greeter/SayHello"
      message = jsonencode({ name = "a" })
    }
  }
  request "web" {
    url = "http://127.0.0.1:8080/"
  }
}
client { timeout = "1s" }
service { capacity = 200 }
load {
  baseline = 50
  spike {
    multiplier = 5
    duration   = "10s"
  }
}
`
	test := grpcTest(t, src)
	mix := test.Driver.Mix
	if len(mix) != 2 || mix[0].GRPC == nil || mix[0].GRPC.Input != nil || mix[1].GRPC != nil || test.Driver.Request.GRPC != mix[0].GRPC {
		t.Fatalf("mix %+v", mix)
	}
	if string(mix[0].Body) != `{"name":"a"}` || mix[0].Name != "hello" || mix[0].Weight != 3 {
		t.Errorf("hello %+v", mix[0])
	}
	text, err := test.ResolveGRPC(ctx)
	if err != nil || strings.Count(text, "helloworld.Greeter/SayHello") != 1 {
		t.Fatalf("ResolveGRPC = %q, %v", text, err)
	}
	if test.Driver.Mix[0].GRPC.Input == nil || test.Driver.Request.GRPC.Input == nil {
		t.Error("the mix's gRPC call has no input type after ResolveGRPC")
	}
}
