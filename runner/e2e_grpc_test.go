package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/staging/grpcgreeter"
)

// grpcTarget is a target block calling method on addr, its message types
// from the server's reflection service, each logical request's id in the
// message.
func grpcTarget(addr, method, message string) string {
	return fmt.Sprintf(`target {
  url         = "grpc://%s"
  allow_hosts = ["127.0.0.1"]
  grpc {
    method     = %q
    reflection = true
    message    = %s
  }
}`, addr, method, message)
}

// The same trigger test over gRPC against the specimen's specimen.Work/Do:
// System A at ρ = 0.4 with two retries stays trapped, at ρ = 0.25 it
// recovers, with A_fail the clients' 3 where it fails, as over HTTP.
func TestE2EGRPCSpecimen(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name     string
		baseline float64
		want     analysis.Verdict
	}{
		{"trapped", 80, analysis.VerdictTrapped},
		{"recovered", 50, analysis.VerdictRecovered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := startSpecimenGRPC(t)
			e := e2eScenario{url: url.http, capacity: 200, baseline: tc.baseline, k: 5, retries: 2,
				target: grpcTarget(url.grpc, "specimen.Work/Do", `jsonencode({ id = "${request.id}" })`)}
			res, err := runE2E(t, context.Background(), e.parse(t))
			if err != nil {
				t.Fatal(err)
			}
			d := res.Document
			if d.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s", d.Verdict, tc.want)
			}
			if a := analysis.Value(d.Amplification.Measured); tc.want == analysis.VerdictTrapped && !(math.Abs(a-3) <= 0.3) {
				t.Errorf("A_fail %v over gRPC, want 3 ± 10 %%", a)
			}
		})
	}
}

// specimenAddrs are a specimen's HTTP base URL (metrics) and gRPC address.
type specimenAddrs struct{ http, grpc string }

// startSpecimenGRPC starts System A (two pods of 100/s) with its gRPC
// listener.
func startSpecimenGRPC(t *testing.T) (specimenAddrs, *specimen.Server) {
	t.Helper()
	sp, err := specimen.StartLoopback(context.Background(), specimen.Config{Pods: 2, PodRate: 100, GRPCAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Stop() })
	return specimenAddrs{sp.URL, sp.GRPCAddr}, sp.Server
}

// A gRPC server nobody here wrote: grpc-go's helloworld Greeter, two
// workers of 10 ms behind a FIFO line (C = 200/s), its ingress, first
// attempts and served calls read from go-grpc-middleware's
// grpc_server_started_total and grpc_server_handled_total (first attempts
// by the attempt label the server adds from x-attempt; its series appear
// with the first call, so the query says "or vector(0)"). Clients with a
// 0.5 s deadline and two retries: at ρ = 0.4 it stays trapped, with
// A_fail within 10 % of the attempts the server counted per first attempt;
// at ρ = 0.2 it recovers; at ρ = 0.4 with the server dropping calls whose
// deadline passed it recovers too (no retry debt).
func TestE2EGRPCGreeter(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name     string
		baseline float64
		drop     bool
		want     analysis.Verdict
	}{
		{"trapped", 80, false, analysis.VerdictTrapped},
		{"recovered", 40, false, analysis.VerdictRecovered},
		{"drops expired calls", 80, true, analysis.VerdictRecovered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g, err := grpcgreeter.Start(ctx, grpcgreeter.Config{Workers: 2, ServiceTime: 10 * time.Millisecond, DropExpired: tc.drop, AttemptLabel: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = g.Stop() })
			const m = `grpc_method="SayHello"`
			e := e2eScenario{capacity: 200, baseline: tc.baseline, k: 5, retries: 2, tracers: true, noWaitQuery: true,
				target:       grpcTarget(g.Addr, "helloworld.Greeter/SayHello", `jsonencode({ name = "trigger-${request.id}" })`),
				ingressQuery: "sum(rate(grpc_server_started_total{" + m + "}[3s]))",
				prometheus: fmt.Sprintf(`scrape         = [%q]
  first_attempts = "sum(rate(grpc_server_started_total{%s,attempt=\"first\"}[3s])) or vector(0)"
  served         = "sum(rate(grpc_server_handled_total{%s,grpc_code=\"OK\"}[3s]))"`, g.MetricsURL, hclEscaped(m), hclEscaped(m))}
			res, err := runE2E(t, context.Background(), e.parse(t))
			if err != nil {
				t.Fatal(err)
			}
			d := res.Document
			if d.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s", d.Verdict, tc.want)
			}
			st := g.Stats()
			t.Logf("greeter: arrived %d, answered %d, abandoned %d, dropped %d, refused %d", st.Arrived, st.Answered, st.Abandoned, st.Dropped, st.Refused)
			if tc.want == analysis.VerdictTrapped {
				a := analysis.Value(d.Amplification.Measured)
				if !(math.Abs(a-3) <= 0.3) {
					t.Errorf("A_fail %v over gRPC against the greeter, want 3 ± 10 %%", a)
				}
				if st.Abandoned == 0 {
					t.Error("the greeter served no call after its client had gone")
				}
			}
			if tc.drop && st.Dropped == 0 {
				t.Error("the greeter dropped no expired call")
			}
		})
	}
}

// hclEscaped is s with its quotes escaped for an HCL string.
func hclEscaped(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
