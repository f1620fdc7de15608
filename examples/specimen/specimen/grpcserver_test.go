package specimen

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trigger-test/trigger/internal/testwait"
)

// startGRPC serves cfg on loopback with its gRPC listener, and returns it
// with a plain grpc-go client of that listener.
func startGRPC(t *testing.T, cfg Config) (*Loopback, *grpc.ClientConn) {
	t.Helper()
	cfg.GRPCAddr = "127.0.0.1:0"
	lb, err := StartLoopback(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lb.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	if lb.GRPCAddr == "" {
		t.Fatal("no gRPC address")
	}
	conn, err := grpc.NewClient("passthrough:///"+lb.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return lb, conn
}

// callDo calls specimen.Work/Do with x-attempt (none when "") and cost
// (0: unset), and returns the call's trailer and error.
func callDo(ctx context.Context, conn *grpc.ClientConn, attempt string, cost float64) (metadata.MD, error) {
	req := dynamicpb.NewMessage(workRequest)
	req.Set(workRequest.Fields().ByName("id"), protoreflect.ValueOfString("req-1"))
	if cost != 0 {
		req.Set(workCostField, protoreflect.ValueOfFloat64(cost))
	}
	if attempt != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "x-attempt", attempt)
	}
	var trailer metadata.MD
	err := conn.Invoke(ctx, GRPCMethod, req, dynamicpb.NewMessage(workReply), grpc.Trailer(&trailer))
	return trailer, err
}

// The same model, the same counters, the same /metrics as "/work": the
// kind from x-attempt, OK when served in time.
func TestGRPCWorkOK(t *testing.T) {
	t.Parallel()
	lb, conn := startGRPC(t, Config{PodRate: 1000})
	for _, a := range []string{"1", "2", "0", ""} {
		if _, err := callDo(t.Context(), conn, a, 0); err != nil {
			t.Fatalf("x-attempt %q: %v", a, err)
		}
	}
	st := lb.Server.Stats()
	if st.IngressFirst != 2 || st.IngressRetry != 1 || st.IngressTracer != 1 || st.Answered != 4 || st.Abandoned != 0 {
		t.Fatalf("stats %+v", st)
	}
	resp, err := http.Get(lb.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`specimen_ingress_total{kind="first"} 2`,
		`specimen_ingress_total{kind="retry"} 1`,
		`specimen_ingress_total{kind="tracer"} 1`,
		`specimen_served_total{result="answered"} 4`,
		"specimen_queue_wait_seconds_count 4",
	} {
		if !strings.Contains(string(body), "\n"+line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}

// The message's cost is "/work?cost=": the pod's virtual clock counts
// cost/c of service for it.
func TestGRPCCost(t *testing.T) {
	t.Parallel()
	lb, conn := startGRPC(t, Config{PodRate: 100})
	if _, err := callDo(t.Context(), conn, "1", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := callDo(t.Context(), conn, "1", 0); err != nil {
		t.Fatal(err)
	}
	if got := lb.Server.Stats().BusySeconds; math.Abs(got-0.04) > 1e-6 {
		t.Fatalf("busy %g s after a call of cost 3 and a plain one at 100/s; want 0.04", got)
	}
}

func TestGRPCCostOf(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 3: 3, 0.5: 0.5, 1e9: maxCost, -1: minCost, 1e-9: minCost, math.NaN(): 1} {
		req := dynamicpb.NewMessage(workRequest)
		req.Set(workCostField, protoreflect.ValueOfFloat64(in))
		if got := grpcCost(req); got != want {
			t.Errorf("grpcCost(%g) = %g; want %g", in, got, want)
		}
	}
}

// A refusal by the admission bound is UNAVAILABLE with the HTTP
// listener's Retry-After as grpc-retry-pushback-ms.
func TestGRPCAdmissionRefusal(t *testing.T) {
	t.Parallel()
	// One pod at 1/s with b = 1 s: the first call occupies the pod for a
	// second, and the second would exceed the bound.
	lb, conn := startGRPC(t, Config{PodRate: 1, AdmissionBound: time.Second, RetryAfter: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = callDo(ctx, conn, "1", 0) })
	defer wg.Wait()
	testwait.For(t, 10*time.Second, time.Millisecond, "the first call inside", func() bool { return lb.Server.Stats().Ingress() > 0 })
	trailer, err := callDo(t.Context(), conn, "2", 0)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("refusal %v; want UNAVAILABLE", err)
	}
	if got := trailer.Get(MetaPushback); len(got) != 1 || got[0] != "2000" {
		t.Errorf("pushback %q; want [2000] (Retry-After 2 s)", got)
	}
	if got := trailer.Get(MetaReason); len(got) != 1 || got[0] != reasonAdmission {
		t.Errorf("reason %q; want [admission]", got)
	}
	if st := lb.Server.Stats(); st.Rejected[reasonAdmission] != 1 || st.IngressRetry != 1 {
		t.Errorf("stats %+v", st)
	}
}

// Calls whose client left (their deadline passed while queued): served
// anyway and counted abandoned by default, as System A does; dropped
// before service (reason deadline) when the gRPC listener honours
// deadlines; dropped as disconnects with CancelOnDisconnect. The HTTP
// listener's deadlines stay DeadlinePropagation's.
func TestGRPCDeadlines(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		http      bool   // the late requests go to "/work" with X-Deadline-Ms
		abandoned uint64 // of the 2 late calls
		reason    string // else the reason they were dropped for
	}{
		{"served by default", Config{}, false, 2, ""},
		{"honoured", Config{GRPCHonourDeadlines: true}, false, 0, reasonDeadline},
		{"cancel on disconnect", Config{CancelOnDisconnect: true}, false, 0, reasonDisconnect},
		{"http unaffected", Config{GRPCHonourDeadlines: true}, true, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One pod at 1/s: a blocker of cost 1 holds it for a second, so
			// the late calls' 50 ms deadlines pass while they wait; they cost
			// 0.01 (10 ms) each when served.
			tc.cfg.PodRate = 1
			lb, conn := startGRPC(t, tc.cfg)
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				if _, err := callDo(t.Context(), conn, "1", 1); err != nil {
					t.Errorf("blocker: %v", err)
				}
			})
			testwait.For(t, 10*time.Second, time.Millisecond, "the blocker inside", func() bool { return lb.Server.Stats().Ingress() > 0 })
			for range 2 {
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				if tc.http {
					req, _ := http.NewRequestWithContext(ctx, "GET", lb.URL+"/work?cost=0.01", nil)
					req.Header.Set(HeaderDeadline, "50")
					if resp, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("late request: %v; want its client's deadline exceeded", err)
						if err == nil {
							resp.Body.Close()
						}
					}
				} else if _, err := callDo(ctx, conn, "1", 0.01); status.Code(err) != codes.DeadlineExceeded {
					t.Errorf("late call: %v; want DEADLINE_EXCEEDED", err)
				}
				cancel()
			}
			wg.Wait()
			testwait.For(t, 10*time.Second, time.Millisecond, "the late calls served or dropped", func() bool {
				st := lb.Server.Stats()
				return st.QueueDepth == 0 && st.InService == 0 && st.Answered == 1 && st.Ingress() == 3 &&
					st.Abandoned+st.Rejected[reasonDeadline]+st.Rejected[reasonDisconnect] == 2
			})
			st := lb.Server.Stats()
			if st.Abandoned != tc.abandoned || tc.reason != "" && st.Rejected[tc.reason] != 2 {
				t.Fatalf("abandoned %d, rejected %v; want %d abandoned, 2 dropped for %q", st.Abandoned, st.Rejected, tc.abandoned, tc.reason)
			}
		})
	}
}

// The reflection service (v1 and v1alpha) lists specimen.Work and serves
// specimen.proto as the descriptors build it.
func TestGRPCReflection(t *testing.T) {
	t.Parallel()
	_, conn := startGRPC(t, Config{})
	stream, err := reflectionv1.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req *reflectionv1.ServerReflectionRequest) *reflectionv1.ServerReflectionResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var names []string
	for _, s := range ask(&reflectionv1.ServerReflectionRequest{
		MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}}).GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, " "), GRPCService) {
		t.Fatalf("services %v lack %s", names, GRPCService)
	}
	for _, sym := range []string{GRPCService, "specimen.WorkRequest"} {
		files := ask(&reflectionv1.ServerReflectionRequest{
			MessageRequest: &reflectionv1.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: sym}}).
			GetFileDescriptorResponse().GetFileDescriptorProto()
		if len(files) != 1 {
			t.Fatalf("%s: %d files; want 1", sym, len(files))
		}
		var fd descriptorpb.FileDescriptorProto
		if err := proto.Unmarshal(files[0], &fd); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&fd, fileProto()) {
			t.Fatalf("%s: reflection serves %v", sym, &fd)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	// The older v1alpha service, which some tools still ask first.
	old, err := reflectionv1alpha.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Send(&reflectionv1alpha.ServerReflectionRequest{
		MessageRequest: &reflectionv1alpha.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := old.Recv()
	if err != nil || len(resp.GetListServicesResponse().GetService()) == 0 {
		t.Fatalf("v1alpha list services: %v, %v", resp, err)
	}
	_ = old.CloseSend()
}

// Stop ends the gRPC listener too; a specimen without GRPCAddr has none.
func TestGRPCStop(t *testing.T) {
	t.Parallel()
	lb, conn := startGRPC(t, Config{PodRate: 1000})
	if _, err := callDo(t.Context(), conn, "1", 0); err != nil {
		t.Fatal(err)
	}
	if err := lb.Stop(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := callDo(ctx, conn, "1", 0); status.Code(err) != codes.Unavailable {
		t.Fatalf("call after Stop: %v; want UNAVAILABLE (no server)", err)
	}
	plain, err := StartLoopback(t.Context(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Stop()
	if plain.GRPCAddr != "" {
		t.Fatalf("gRPC listener %s without GRPCAddr", plain.GRPCAddr)
	}
	if _, err := StartLoopback(t.Context(), Config{GRPCAddr: "192.0.2.1:0"}); err == nil {
		t.Fatal("a gRPC address off loopback was accepted")
	}
}

// Statuses of the model's results.
func TestGRPCCode(t *testing.T) {
	for in, want := range map[int]codes.Code{200: codes.OK, 429: codes.ResourceExhausted, 503: codes.Unavailable,
		504: codes.Unavailable, 502: codes.Unavailable, 418: codes.Unknown} {
		if got := grpcCode(in); got != want {
			t.Errorf("grpcCode(%d) = %v; want %v", in, got, want)
		}
	}
}

// With the gateway on, gRPC calls go through it as "/work" requests do.
func TestGRPCThroughGateway(t *testing.T) {
	t.Parallel()
	lb, conn := startGRPC(t, Config{PodRate: 1000, Gateway: GatewayConfig{Enabled: true, Retries: 1}})
	if _, err := callDo(t.Context(), conn, "1", 0); err != nil {
		t.Fatal(err)
	}
	if st := lb.Server.Stats(); st.GatewayRequests["ok"] != 1 || st.GatewayUpstream != 1 || st.IngressFirst != 1 || st.Answered != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// At shutdown a queued call is refused UNAVAILABLE (reason shutdown), as
// a queued "/work" request is answered 503.
func TestGRPCShutdownRefusesQueued(t *testing.T) {
	t.Parallel()
	lb, conn := startGRPC(t, Config{PodRate: 1})
	var wg sync.WaitGroup
	defer wg.Wait()
	codesOf := make([]codes.Code, 2)
	reasons := make([][]string, 2)
	for i := range 2 { // one in service for a second, one queued behind it
		wg.Go(func() {
			trailer, err := callDo(t.Context(), conn, "1", 0)
			codesOf[i], reasons[i] = status.Code(err), trailer.Get(MetaReason)
		})
		testwait.For(t, 10*time.Second, time.Millisecond, "the call inside", func() bool { return lb.Server.Stats().Ingress() == uint64(i+1) })
	}
	if err := lb.Stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i := range 2 {
		if codesOf[i] != codes.Unavailable || len(reasons[i]) != 1 || reasons[i][0] != "shutdown" {
			t.Errorf("call %d: %v, reason %q; want UNAVAILABLE, shutdown", i, codesOf[i], reasons[i])
		}
	}
}
