package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
	"github.com/trigger-test/trigger/scenarios"
)

// grpcCheckScenario calls the Greeter at addr, its types by reflection.
func grpcCheckScenario(t *testing.T, addr, message string, extra ...string) *scenarios.Scenario {
	t.Helper()
	src := strings.Join(extra, "\n") + `
scenario "grpc" {}
target {
  url         = "grpc://` + addr + `"
  allow_hosts = ["127.0.0.1"]
  grpc {
    method     = "helloworld.Greeter/SayHello"
    reflection = true
    message    = ` + message + `
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
	s, err := scenarios.Parse(filepath.Join(t.TempDir(), "s.hcl"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckGRPCDescriptors: trigger check has a step "grpc descriptors"
// that fetches a reflection target's message types and encodes one
// message, failing on a field the message does not have (a run would
// stop there: KindUsage). No request is sent to the target (NoRequest):
// the driver's gRPC path is not this test's.
func TestCheckGRPCDescriptors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr := grpcdesctest.Serve(t, grpcdesctest.ReflectionV1)
	step := func(message string) CheckStep {
		t.Helper()
		steps, err := Check(ctx, CheckOptions{Run: Options{Test: testOf(t, grpcCheckScenario(t, addr, message)), Logf: t.Logf}, NoRequest: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if s.Name == "target TLS" && s.Detail != "plaintext gRPC (h2c): no handshake" {
				t.Errorf("target TLS step = %+v", s)
			}
			if s.Name == "grpc descriptors" {
				return s
			}
		}
		t.Fatalf("no grpc descriptors step in %+v", steps)
		return CheckStep{}
	}
	if s := step(`jsonencode({ name = request.id })`); !s.OK || !strings.Contains(s.Detail, "helloworld.Greeter/SayHello (helloworld.HelloRequest, from reflection)") {
		t.Errorf("step = %+v", s)
	}
	if s := step(`jsonencode({ nme = "x" })`); s.OK || s.Kind != KindUsage || !strings.Contains(s.Detail, `unknown field "nme"`) {
		t.Errorf("bad message: step = %+v", s)
	}
}

// TestRunStopsOnGRPCDescriptors: a run whose reflection target's message
// does not fit stops in its preflight (KindUsage), before the driver.
func TestRunStopsOnGRPCDescriptors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr := grpcdesctest.Serve(t, grpcdesctest.ReflectionV1)
	_, err := Run(ctx, Options{Test: testOf(t, grpcCheckScenario(t, addr, `jsonencode({ nme = "x" })`)), OutDir: t.TempDir(), Overwrite: true, Logf: t.Logf})
	var re *Error
	if err == nil || !strings.Contains(err.Error(), "grpc descriptors") || !strings.Contains(err.Error(), `unknown field "nme"`) {
		t.Fatalf("Run = %v", err)
	}
	if !errors.As(err, &re) || re.Kind != KindUsage {
		t.Errorf("kind = %v", err)
	}
}

// Once a step has failed, check asks the target nothing: no reflection
// fetch (a run would have stopped there).
func TestCheckGRPCAfterAFailedStep(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := grpcCheckScenario(t, "127.0.0.1:1", `"{}"`, `gate { baseline = "missing-result.json" }`)
	steps, err := Check(ctx, CheckOptions{Run: Options{Test: testOf(t, s), Logf: t.Logf}, NoRequest: true})
	if err != nil {
		t.Fatal(err)
	}
	failed := false
	for _, st := range steps {
		failed = failed || (st.Name == "baseline" && !st.OK)
		if st.Name == "grpc descriptors" {
			t.Errorf("grpc descriptors step after a failed one: %+v", st)
		}
	}
	if !failed {
		t.Fatalf("no failed baseline step in %+v", steps)
	}
}
