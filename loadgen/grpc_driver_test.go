package loadgen

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// TestGRPCDriverOutcomes: each status code the server answers is counted
// under its outcome class (ClassifyGRPC), with the per-second columns
// summing to the totals.
func TestGRPCDriverOutcomes(t *testing.T) {
	var code atomic.Int32
	s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{code: codes.Code(code.Load())} })
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		code.Store(int32(c))
		d := runDriver(t, Config{
			Request:  grpcReq(t, s, `{"id":"x"}`),
			Stages:   []Stage{Constant(100*time.Millisecond, 50)},
			Arrivals: vocab.Uniform,
			Timeout:  5 * time.Second,
		})
		tot := checkAccounting(t, d)
		want := ClassifyGRPC(c)
		if tot.Sent == 0 || tot.FirstOutcomes[want] != tot.Sent {
			t.Errorf("%v: sent %d, outcomes %v; want all %v", c, tot.Sent, tot.FirstOutcomes, want)
		}
	}
}

// TestGRPCDriverDeadline: a call the server holds past the attempt's
// timeout is a timeout; the server saw the deadline (grpc-timeout) and
// x-deadline-ms; a tracer is the same call with the tracer timeout.
func TestGRPCDriverDeadline(t *testing.T) {
	s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{wait: time.Minute} })
	d := runDriver(t, Config{
		Request:  grpcReq(t, s, `{"id":"x"}`),
		Stages:   []Stage{Constant(500*time.Millisecond, 20)},
		Arrivals: vocab.Uniform,
		Timeout:  100 * time.Millisecond,
		Tracers:  &vocab.Tracers{Rate: 5, Timeout: 150 * time.Millisecond},
	})
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.FirstOutcomes[vocab.OutcomeTimeout] != tot.Sent {
		t.Errorf("sent %d, outcomes %v; want all timeouts", tot.Sent, tot.FirstOutcomes)
	}
	// A tracer still waiting when the last logical request ends is cut
	// short (other); the others time out.
	if to := tot.TracerOutcomes[vocab.OutcomeTimeout]; to == 0 || to+tot.TracerOutcomes[vocab.OutcomeOther] != tot.TracerSent {
		t.Errorf("tracers sent %d, outcomes %v; want timeouts", tot.TracerSent, tot.TracerOutcomes)
	}
	tracers := 0
	for id, cs := range s.calls() {
		for _, c := range cs {
			limit, ms := 100*time.Millisecond, "100"
			if attemptOf(c) == 0 {
				limit, ms = 150*time.Millisecond, "150"
				tracers++
			}
			if c.deadline <= 0 || c.deadline > limit {
				t.Errorf("call %s: deadline in %v at the server; want (0, %v] (grpc-timeout)", id, c.deadline, limit)
			}
			if got := first(c.md.Get("x-deadline-ms")); got != ms {
				t.Errorf("call %s: x-deadline-ms %q, want %s", id, got, ms)
			}
		}
	}
	if tracers == 0 {
		t.Error("the server saw no tracer")
	}
}

// TestGRPCDriverMetadataAndRender: Header arrives as metadata with the
// tracking headers; per-request markers in metadata and message are
// filled with the logical request's values; the message is encoded once
// per logical request (not per attempt), and once per driver when it
// holds no markers.
func TestGRPCDriverMetadataAndRender(t *testing.T) {
	s := startGRPCServer(t, func(c grpcCall) grpcAnswer {
		if c.attempt == 1 {
			return grpcAnswer{code: codes.Unavailable}
		}
		return grpcAnswer{}
	})
	policy := retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.Outcome503),
		Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: time.Millisecond}}
	req := grpcReq(t, s, `{"id":"`+vocab.PerRequestID.Marker()+`","n":`+vocab.PerRequestSeq.Marker()+`}`)
	req.Header = http.Header{"X-Team": {"checkout"}, "Idempotency-Key": {vocab.PerRequestID.Marker()}, "X-Attempt": {"99"}}
	d, err := NewDriver(Config{Request: req, Stages: []Stage{Constant(200*time.Millisecond, 50)}, Arrivals: vocab.Uniform,
		Timeout: 5 * time.Second, Retry: policy})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.Succeeded != tot.Sent || tot.Retries != tot.Sent {
		t.Fatalf("totals %+v", tot.Second)
	}
	if got := d.path.(*grpcPath).encodes.Load(); got != tot.Sent {
		t.Errorf("%d messages encoded for %d logical requests (%d attempts)", got, tot.Sent, tot.Attempts())
	}
	for id, cs := range s.calls() {
		if len(cs) != 2 {
			t.Errorf("call %s: %d attempts, want 2", id, len(cs))
		}
		for i, c := range cs {
			if c.method != testMethod || attemptOf(c) != i+1 || first(c.md.Get("x-team")) != "checkout" ||
				first(c.md.Get("idempotency-key")) != id || len(c.md.Get("x-attempt")) != 1 {
				t.Errorf("call %s attempt %d: method %s, metadata %v", id, i+1, c.method, c.md)
			}
			fields := c.msg.Descriptor().Fields()
			seq := c.msg.Get(fields.ByName("n")).Int()
			if got := c.msg.Get(fields.ByName("id")).String(); got != id || id != d.idPrefix+strconv.FormatInt(seq, 10) {
				t.Errorf("call %s: message id %q n %d", id, got, seq)
			}
		}
	}

	// No markers: encoded once, by NewDriver.
	fixed, err := NewDriver(Config{Request: grpcReq(t, s, `{"id":"same"}`), Stages: []Stage{Constant(100*time.Millisecond, 50)},
		Arrivals: vocab.Uniform, Timeout: 5 * time.Second, Retry: policy})
	if err != nil {
		t.Fatal(err)
	}
	if err := fixed.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fixed.path.(*grpcPath).encodes.Load(); got != 1 || fixed.Totals().Sent == 0 {
		t.Errorf("fixed message encoded %d times for %d logical requests; want once", got, fixed.Totals().Sent)
	}
}

// TestGRPCDriverRenderFailsOther: a message whose filled-in values do not
// encode (request.id in an int64 field) makes its attempts "other",
// never sent.
func TestGRPCDriverRenderFailsOther(t *testing.T) {
	s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{} })
	d := runDriver(t, Config{
		Request:  grpcReq(t, s, `{"n":"`+vocab.PerRequestID.Marker()+`"}`),
		Stages:   []Stage{Constant(100*time.Millisecond, 50)},
		Arrivals: vocab.Uniform,
		Timeout:  time.Second,
		Retry: retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeOther),
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: time.Millisecond}},
	})
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.FirstOutcomes[vocab.OutcomeOther] != tot.Sent || len(s.calls()) != 0 {
		t.Errorf("sent %d, outcomes %v, server saw %d calls; want all other, none sent", tot.Sent, tot.FirstOutcomes, len(s.calls()))
	}
	if got := d.path.(*grpcPath).encodes.Load(); got != tot.Sent {
		t.Errorf("%d encodings for %d logical requests", got, tot.Sent)
	}
}

// TestGRPCDriverPushback: grpc-retry-pushback-ms N ≥ 0 delays the retry
// by N ms, as Retry-After does, instead of the backoff; a negative value
// is never retried.
func TestGRPCDriverPushback(t *testing.T) {
	for _, pb := range []string{"300", "-1", "soon"} {
		s := startGRPCServer(t, func(c grpcCall) grpcAnswer {
			if c.attempt == 1 {
				return grpcAnswer{code: codes.Unavailable, trailer: metadata.Pairs(pushbackKey, pb)}
			}
			return grpcAnswer{}
		})
		d := runDriver(t, Config{
			Request:  grpcReq(t, s, `{}`),
			Stages:   []Stage{Constant(200*time.Millisecond, 25)},
			Arrivals: vocab.Uniform,
			Timeout:  time.Second,
			Retry: retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.Outcome503), RetryAfter: true,
				Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: time.Millisecond}},
		})
		tot := checkAccounting(t, d)
		calls := s.calls()
		if tot.Sent == 0 || len(calls) != int(tot.Sent) {
			t.Fatalf("pushback %s: sent %d, server saw %d calls", pb, tot.Sent, len(calls))
		}
		for id, cs := range calls {
			if pb != "300" {
				if len(cs) != 1 {
					t.Errorf("pushback %s: call %s sent %d times; want no retry", pb, id, len(cs))
				}
				continue
			}
			if len(cs) != 2 {
				t.Errorf("pushback %s: call %s sent %d times; want 2", pb, id, len(cs))
			}
		}
		if pb == "300" && tot.Succeeded != tot.Sent {
			t.Errorf("pushback 300: %d of %d succeeded", tot.Succeeded, tot.Sent)
		}
		if pb != "300" && tot.Failed != tot.Sent {
			t.Errorf("pushback %s: %d of %d failed; want all", pb, tot.Failed, tot.Sent)
		}
	}
}

// TestGRPCDriverPushbackDelay: the retry after pushback 300 ms comes no
// sooner than 300 ms after the first attempt (the backoff is 1 ms).
func TestGRPCDriverPushbackDelay(t *testing.T) {
	var firstAt, gap atomic.Int64
	s := startGRPCServer(t, func(c grpcCall) grpcAnswer {
		if c.attempt == 1 {
			firstAt.Store(time.Now().UnixNano())
			return grpcAnswer{code: codes.ResourceExhausted, trailer: metadata.Pairs(pushbackKey, "300")}
		}
		gap.Store(time.Now().UnixNano() - firstAt.Load())
		return grpcAnswer{}
	})
	runDriver(t, Config{
		Request: grpcReq(t, s, `{}`), Stages: []Stage{Constant(10*time.Millisecond, 100)}, Arrivals: vocab.Uniform,
		Timeout: time.Second,
		Retry: retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome429), RetryAfter: true,
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: time.Millisecond}},
	})
	if g := time.Duration(gap.Load()); g < 300*time.Millisecond {
		t.Errorf("retry %v after the first attempt; want ≥ 300ms (the pushback)", g)
	}
}

// TestNewDriverGRPCErrors: NewDriver refuses a gRPC call it cannot make.
func TestNewDriverGRPCErrors(t *testing.T) {
	desc := testReqDesc(t)
	call := &GRPCCall{Method: testMethod, Input: desc}
	ok := Request{URL: "grpc://127.0.0.1:1", GRPC: call, Body: []byte(`{"id":"a"}`)}
	with := func(f func(r *Request)) Request { r := ok; f(&r); return r }
	cases := map[string][]Request{
		"grpc url, no GRPC":   {with(func(r *Request) { r.GRPC = nil })},
		"GRPC, http url":      {with(func(r *Request) { r.URL = "http://127.0.0.1:1/" })},
		"nil input":           {with(func(r *Request) { r.GRPC = &GRPCCall{Method: testMethod} })},
		"bad method":          {with(func(r *Request) { r.GRPC = &GRPCCall{Method: "tt.Svc/Do", Input: desc} })},
		"path in url":         {with(func(r *Request) { r.URL = "grpc://127.0.0.1:1/x" })},
		"marker in url":       {with(func(r *Request) { r.URL = "grpc://" + vocab.PerRequestID.Marker() + ":1" })},
		"message not encoded": {with(func(r *Request) { r.Body = []byte(`{"nope":1}`) })},
		"http and grpc":       {with(func(r *Request) { r.Weight = 1 }), {URL: "http://127.0.0.1:1/", Weight: 1}},
		"two hosts":           {with(func(r *Request) { r.Weight = 1 }), with(func(r *Request) { r.Weight = 1; r.URL = "grpc://127.0.0.2:1" })},
	}
	for name, mix := range cases {
		if _, err := NewDriver(Config{Mix: mix, Stages: []Stage{Constant(time.Second, 1)}, Timeout: time.Second}); err == nil {
			t.Errorf("%s: NewDriver accepted it", name)
		}
	}
	if _, err := NewDriver(Config{Request: ok, Stages: []Stage{Constant(time.Second, 1)}, Timeout: time.Second}); err != nil {
		t.Errorf("a good gRPC request: %v", err)
	}
}

// TestGRPCDriverOverloadBounded: at ten times what MaxInFlight allows,
// every attempt timing out, the attempts in flight at the server never
// exceed MaxInFlight, the excess is refused and counted, and the
// goroutines stay bounded while it lasts and return after.
func TestGRPCDriverOverloadBounded(t *testing.T) {
	s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{wait: time.Minute} })
	const maxInFlight = 20
	before := runtime.NumGoroutine()
	d, err := NewDriver(Config{
		Request: grpcReq(t, s, `{"id":"x"}`),
		// 20 in flight × 200 ms timeouts carry 100 calls/s; ask 1000/s.
		Stages: []Stage{Constant(600*time.Millisecond, 1000)}, Arrivals: vocab.Uniform,
		Timeout: 200 * time.Millisecond, MaxInFlight: maxInFlight,
		Retry: retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout),
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 5 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background()) }()
	most := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		case <-time.After(5 * time.Millisecond):
			most = max(most, runtime.NumGoroutine())
		}
	}
	tot := checkAccounting(t, d)
	if tot.Refused == 0 || tot.FirstOutcomes[vocab.OutcomeTimeout] == 0 || tot.Succeeded != 0 {
		t.Errorf("totals %+v: want refusals and timeouts, no success", tot.Second)
	}
	if int(tot.InFlight) > maxInFlight {
		t.Errorf("%d in flight", tot.InFlight)
	}
	// Per attempt in flight: the driver's goroutine, the server's stream
	// handler and its timer; plus the pool and the server's fixed ones.
	if limit := before + 4*maxInFlight + 60; most > limit {
		t.Errorf("%d goroutines at most (%d before); want ≤ %d", most, before, limit)
	}
}

// TestGRPCDriverCancel: cancelling the run ends the calls in flight
// ("other") and the queued retries; every attempt has one outcome, and
// the pool's and the calls' goroutines are gone when Run has returned.
func TestGRPCDriverCancel(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) }) // after the server's stop (cleanups run last first)
	s := startGRPCServer(t, func(grpcCall) grpcAnswer { return grpcAnswer{wait: time.Minute} })
	d, err := NewDriver(Config{
		Request: grpcReq(t, s, `{}`),
		Stages:  []Stage{Constant(20*time.Second, 50)},
		Timeout: 150 * time.Millisecond,
		Retry: retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout),
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 5 * time.Second}},
		Tracers: &vocab.Tracers{Rate: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	testwait.For(t, 10*time.Second, 10*time.Millisecond, "a retry queued and calls in flight", func() bool {
		tot := d.Totals()
		return tot.FirstOutcomes[vocab.OutcomeTimeout] >= 5 && d.inFlight.Load() > 0
	})
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.FirstOutcomes[vocab.OutcomeOther] == 0 || tot.Failed != tot.Sent || d.rq.len() != 0 {
		t.Errorf("totals %+v", tot.Second)
	}
}
