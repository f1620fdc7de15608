package fleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
)

// An agent resolves a reflection target's message types itself before
// it builds its driver: a message that does not fit stops it there,
// naming the field, with no load sent.
func TestAgentResolvesGRPCDescriptors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	src := `scenario "grpc" {}
target {
  url         = "grpc://` + grpcdesctest.Serve(t, grpcdesctest.ReflectionV1) + `"
  allow_hosts = ["127.0.0.1"]
  grpc {
    method     = "helloworld.Greeter/SayHello"
    reflection = true
    message    = jsonencode({ nme = "x" })
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
	a := &agent{}
	_, err := a.prepare(ctx, Assignment{Index: 0, Agents: 1, File: "s.hcl", Source: []byte(src), Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "grpc descriptors") || !strings.Contains(err.Error(), `unknown field "nme"`) {
		t.Fatalf("prepare = %v", err)
	}
}
