package cli

import (
	"strings"
	"testing"
)

// plan names a gRPC target's call: the method, its host, and where the
// message types come from (here the descriptor set the scenario read;
// plan fetches nothing), and the host in what the run sends load to.
func TestPlanGRPCTarget(t *testing.T) {
	code, stdout, stderr := run(t, "plan", "scenarios/testdata/good/grpc.hcl")
	if code == ExitUsage {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"gRPC calls:\n  helloworld.Greeter/SayHello at grpc://127.0.0.1:9090 (helloworld.HelloRequest from scenarios/testdata/good/greeter.protoset)",
		"grpc://127.0.0.1:9090",
		"greeter.protoset",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan's text has no %q:\n%s", want, stdout)
		}
	}
}
