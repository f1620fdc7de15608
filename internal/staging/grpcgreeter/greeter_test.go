package grpcgreeter_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/examples/helloworld/helloworld"
	"google.golang.org/grpc/metadata"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/trigger-test/trigger/internal/staging/grpcgreeter"
	"github.com/trigger-test/trigger/internal/testwait"
)

// Every goroutine a test starts, the greeter's included, must have ended
// when the tests are over.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// start runs a greeter for the test and returns it with a plain grpc-go
// client of it.
func start(t *testing.T, cfg grpcgreeter.Config) (*grpcgreeter.Greeter, helloworld.GreeterClient, *grpc.ClientConn) {
	t.Helper()
	g, err := grpcgreeter.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	conn, err := grpc.NewClient("passthrough:///"+g.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return g, helloworld.NewGreeterClient(conn), conn
}

// scrape reads the greeter's /metrics and returns the value of each
// grpc_server_* sample of SayHello, keyed by its name and its labels other
// than grpc_type, grpc_service and grpc_method, as `name{k="v",...}`.
func scrape(t *testing.T, g *grpcgreeter.Greeter) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, g.MetricsURL, nil)
	req.Close = true // no idle connection left for goleak to find
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			if label(m, "grpc_method") != "SayHello" {
				continue
			}
			if label(m, "grpc_service") != "helloworld.Greeter" || label(m, "grpc_type") != "unary" {
				t.Fatalf("%s: labels %v", name, m.GetLabel())
			}
			var rest []string
			for _, l := range m.GetLabel() {
				if n := l.GetName(); n != "grpc_type" && n != "grpc_service" && n != "grpc_method" {
					rest = append(rest, n+"="+strconv.Quote(l.GetValue()))
				}
			}
			out[name+"{"+strings.Join(rest, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// waitIdle waits until every one of the calls that arrived has ended,
// and the metrics interceptor has counted it handled (after the handler
// returned).
func waitIdle(t *testing.T, g *grpcgreeter.Greeter, arrived uint64) {
	t.Helper()
	testwait.For(t, 10*time.Second, 10*time.Millisecond, "the greeter idle", func() bool {
		if st := g.Stats(); st.Arrived != arrived || st.InSystem != 0 {
			return false
		}
		var handled float64
		for k, v := range scrape(t, g) {
			if strings.HasPrefix(k, "grpc_server_handled_total{") {
				handled += v
			}
		}
		return handled == float64(arrived)
	})
}

// SayHello is answered as grpc-go's example answers it, and the
// reflection service lists the greeter.
func TestSayHello(t *testing.T) {
	t.Parallel()
	g, client, conn := start(t, grpcgreeter.Config{})
	reply, err := client.SayHello(t.Context(), &helloworld.HelloRequest{Name: "trigger"})
	if err != nil || reply.GetMessage() != "Hello trigger" {
		t.Fatalf("SayHello: %v, %v", reply, err)
	}
	if st := g.Stats(); st.Arrived != 1 || st.Answered != 1 {
		t.Fatalf("stats %+v", st)
	}
	stream, err := reflectionv1.NewServerReflectionClient(conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionv1.ServerReflectionRequest{
		MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, " "), "helloworld.Greeter") {
		t.Fatalf("reflection lists %v", names)
	}
	_ = stream.CloseSend()
}

// A burst waits in line: with one worker, the k-th call of a burst finds
// k calls ahead of it (its wait is k service times) and is served k-th.
// Counts and order only: no duration is asserted.
func TestBurstQueuesFIFO(t *testing.T) {
	t.Parallel()
	const n = 5
	// 300 ms of service each: the whole burst arrives while the first is
	// served (each call is sent once the previous one has arrived).
	g, client, _ := start(t, grpcgreeter.Config{Workers: 1, ServiceTime: 300 * time.Millisecond})
	trailers := make([]metadata.MD, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = client.SayHello(t.Context(), &helloworld.HelloRequest{Name: strconv.Itoa(i)}, grpc.Trailer(&trailers[i]))
		})
		testwait.For(t, 10*time.Second, time.Millisecond, "call "+strconv.Itoa(i)+" arrived", func() bool {
			return g.Stats().Arrived == uint64(i+1)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		want := map[string]string{
			grpcgreeter.TrailerArrival: strconv.Itoa(i + 1),
			grpcgreeter.TrailerAhead:   strconv.Itoa(i),
			grpcgreeter.TrailerStart:   strconv.Itoa(i + 1),
		}
		for k, v := range want {
			if got := trailers[i].Get(k); len(got) != 1 || got[0] != v {
				t.Errorf("call %d: %s = %q; want %s", i, k, got, v)
			}
		}
	}
	if st := g.Stats(); st.Answered != n || st.Abandoned != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A client with a short deadline sees DEADLINE_EXCEEDED while its call
// waits. The server serves it anyway and counts it OK (System A) unless
// DropExpired, which drops it unserved (DeadlineExceeded or Canceled):
// grpc_server_started_total counts every arrival, and
// grpc_server_handled_total every end by code.
func TestDeadlineExceeded(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run("drop="+strconv.FormatBool(drop), func(t *testing.T) {
			t.Parallel()
			g, client, _ := start(t, grpcgreeter.Config{Workers: 1, ServiceTime: 300 * time.Millisecond, DropExpired: drop})
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{Name: "blocker"}); err != nil {
					t.Errorf("blocker: %v", err)
				}
			})
			testwait.For(t, 10*time.Second, time.Millisecond, "the blocker inside", func() bool { return g.Stats().Arrived == 1 })
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			_, err := client.SayHello(ctx, &helloworld.HelloRequest{Name: "late"})
			cancel()
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("late call: %v; want DEADLINE_EXCEEDED", err)
			}
			wg.Wait()
			waitIdle(t, g, 2)
			st := g.Stats()
			got := scrape(t, g)
			wantOK, wantGone := 2.0, 0.0
			if drop {
				wantOK, wantGone = 1, 1
				if st.Dropped != 1 || st.Answered != 1 || st.Abandoned != 0 {
					t.Errorf("stats %+v; want 1 answered, 1 dropped", st)
				}
			} else if st.Abandoned != 1 || st.Answered != 1 || st.Dropped != 0 {
				t.Errorf("stats %+v; want 1 answered, 1 abandoned", st)
			}
			// The client's deadline passes first and it resets the stream, so
			// the server sees its call cancelled, unless its own timer, from
			// grpc-timeout, fires first: a dropped call ends DeadlineExceeded
			// or Canceled.
			gone := got[`grpc_server_handled_total{grpc_code="DeadlineExceeded"}`] + got[`grpc_server_handled_total{grpc_code="Canceled"}`]
			if ok := got[`grpc_server_handled_total{grpc_code="OK"}`]; ok != wantOK || gone != wantGone {
				t.Errorf("handled OK %v, DeadlineExceeded or Canceled %v; want %v and %v (all %v)", ok, gone, wantOK, wantGone, got)
			}
			if started := got["grpc_server_started_total{}"]; started != 2 {
				t.Errorf("started %v; want 2", started)
			}
		})
	}
}

// A call that finds MaxWaiting calls waiting is refused at once with
// RESOURCE_EXHAUSTED, counted handled with that code.
func TestQueueFull(t *testing.T) {
	t.Parallel()
	g, client, _ := start(t, grpcgreeter.Config{Workers: 1, ServiceTime: 300 * time.Millisecond, MaxWaiting: 1})
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range 2 { // one in service, one waiting
		wg.Go(func() {
			if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{Name: "x"}); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
		testwait.For(t, 10*time.Second, time.Millisecond, "call inside", func() bool { return g.Stats().Arrived == uint64(i+1) })
	}
	if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{Name: "over"}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("third call: %v; want RESOURCE_EXHAUSTED", err)
	}
	wg.Wait()
	waitIdle(t, g, 3)
	if st := g.Stats(); st.Refused != 1 || st.Answered != 2 {
		t.Fatalf("stats %+v", st)
	}
	if got := scrape(t, g)[`grpc_server_handled_total{grpc_code="ResourceExhausted"}`]; got != 1 {
		t.Fatalf("handled ResourceExhausted %v; want 1", got)
	}
}

// With AttemptLabel the series tell first attempts, retries and tracers
// apart by x-attempt.
func TestAttemptLabel(t *testing.T) {
	t.Parallel()
	g, client, _ := start(t, grpcgreeter.Config{AttemptLabel: true, ServiceTime: time.Millisecond})
	for _, a := range []string{"1", "2", "3", "0", ""} {
		ctx := t.Context()
		if a != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "x-attempt", a)
		}
		if _, err := client.SayHello(ctx, &helloworld.HelloRequest{Name: a}); err != nil {
			t.Fatal(err)
		}
	}
	waitIdle(t, g, 5)
	got := scrape(t, g)
	for k, v := range map[string]float64{
		`grpc_server_started_total{attempt="first"}`:                2,
		`grpc_server_started_total{attempt="retry"}`:                2,
		`grpc_server_started_total{attempt="tracer"}`:               1,
		`grpc_server_handled_total{attempt="retry",grpc_code="OK"}`: 2,
		`grpc_server_handled_total{attempt="first",grpc_code="OK"}`: 2,
	} {
		if got[k] != v {
			t.Errorf("%s = %v; want %v (all: %v)", k, got[k], v, got)
		}
	}
}

// Stop ends the server; Start takes loopback addresses only.
func TestStop(t *testing.T) {
	t.Parallel()
	g, client, _ := start(t, grpcgreeter.Config{})
	if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := g.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("after Stop: %v; want UNAVAILABLE", err)
	}
	if _, err := grpcgreeter.Start(t.Context(), grpcgreeter.Config{Addr: "192.0.2.1:0"}); err == nil {
		t.Fatal("an address off loopback was accepted")
	}
}

// grpc-go's own retry policy marks its retries (grpc-previous-rpc-attempts),
// which AttemptLabel counts as retries: the first attempt and its retry of
// a call refused twice (the line full) are told apart at the server.
func TestAttemptLabelGRPCRetries(t *testing.T) {
	t.Parallel()
	g, client, _ := start(t, grpcgreeter.Config{AttemptLabel: true, Workers: 1, ServiceTime: 300 * time.Millisecond, MaxWaiting: 1})
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range 2 { // one in service, one waiting: the line is full
		wg.Go(func() {
			if _, err := client.SayHello(t.Context(), &helloworld.HelloRequest{Name: "x"}); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
		testwait.For(t, 10*time.Second, time.Millisecond, "call inside", func() bool { return g.Stats().Arrived == uint64(i+1) })
	}
	const policy = `{"methodConfig": [{"name": [{"service": "helloworld.Greeter"}], "retryPolicy": {
		"maxAttempts": 2, "initialBackoff": "0.001s", "maxBackoff": "0.001s", "backoffMultiplier": 1,
		"retryableStatusCodes": ["RESOURCE_EXHAUSTED"]}}]}`
	conn, err := grpc.NewClient("passthrough:///"+g.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(policy))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := helloworld.NewGreeterClient(conn).SayHello(t.Context(), &helloworld.HelloRequest{Name: "retried"}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("retried call: %v; want RESOURCE_EXHAUSTED after its retry", err)
	}
	wg.Wait()
	waitIdle(t, g, 4)
	got := scrape(t, g)
	for k, v := range map[string]float64{
		`grpc_server_started_total{attempt="first"}`:                               3,
		`grpc_server_started_total{attempt="retry"}`:                               1,
		`grpc_server_handled_total{attempt="first",grpc_code="ResourceExhausted"}`: 1,
		`grpc_server_handled_total{attempt="retry",grpc_code="ResourceExhausted"}`: 1,
	} {
		if got[k] != v {
			t.Errorf("%s = %v; want %v (all: %v)", k, got[k], v, got)
		}
	}
}
