package cli

import (
	"testing"

	"github.com/trigger-test/trigger/examples"
	"github.com/trigger-test/trigger/scenarios"
)

// demo --grpc runs Systems A and B, each specimen with its gRPC listener,
// through examples/demo-grpc.hcl, which decodes with the demo's
// variables; without it the demo keeps its three systems.
func TestDemoSystemsOverGRPC(t *testing.T) {
	if n := len(demoSystems(false)); n != 3 {
		t.Fatalf("the demo runs %d systems, want 3", n)
	}
	sys := demoSystems(true)
	if len(sys) != 2 || sys[0].key != "system-a" || sys[1].key != "system-b" {
		t.Fatalf("over gRPC: %+v; want Systems A and B", sys)
	}
	for _, s := range sys {
		if !s.grpc || s.fault || s.config.GRPCAddr == "" {
			t.Errorf("%s: grpc %v fault %v listener %q", s.key, s.grpc, s.fault, s.config.GRPCAddr)
		}
	}
	s, err := scenarios.Parse(examples.DemoGRPCScenarioName, examples.DemoGRPCScenario, map[string]string{"port": "8080", "grpc_port": "9090", "admission_bound": "500ms"})
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Target.GRPC; g == nil || g.Method != "specimen.Work/Do" || !g.Reflection {
		t.Errorf("demo-grpc.hcl's target: %+v", s.Target)
	}
}
