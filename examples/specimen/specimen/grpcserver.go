package specimen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Metadata of the gRPC listener: the wire headers of the HTTP one, in
// lower case as HTTP/2 carries them (metadata.MD.Get lowers its key).
const (
	// MetaPushback is the trailer of an admission refusal (UNAVAILABLE):
	// the milliseconds a client should wait before retrying, gRPC's
	// Retry-After (gRFC A6).
	MetaPushback = "grpc-retry-pushback-ms"
	// MetaReason is the trailer naming the reason of a refusal, the HTTP
	// listener's X-Specimen-Reason.
	MetaReason = "x-specimen-reason"
)

// grpcMaxStreams bounds the concurrent calls of one client connection. A
// trapped run holds about rate × client timeout calls open at once (each
// waiting in the model's queues, which MaxQueue bounds); grpc-go's own
// default is unbounded.
const grpcMaxStreams = 1 << 16

// grpcGrace bounds the wait for calls in flight at shutdown, as Serve's
// for HTTP requests.
const grpcGrace = 2 * time.Second

// workServer is the handler type of specimen.Work, for grpc.ServiceDesc.
type workServer interface {
	doWork(ctx context.Context, req *dynamicpb.Message) (*dynamicpb.Message, error)
}

// workServiceDesc registers specimen.Work without generated code: the
// messages are dynamicpb ones of workFile's descriptors, which grpc-go's
// proto codec reads and writes as it would generated ones.
var workServiceDesc = grpc.ServiceDesc{
	ServiceName: GRPCService,
	HandlerType: (*workServer)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: string(workMethodDesc.Name()),
		Handler:    doHandler,
	}},
	Metadata: ProtoFile,
}

// doHandler decodes a WorkRequest and calls the server's doWork, through
// the server's interceptor if it has one.
func doHandler(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	in := dynamicpb.NewMessage(workRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	ws := srv.(workServer)
	if interceptor == nil {
		return ws.doWork(ctx, in)
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: GRPCMethod}
	return interceptor(ctx, in, info, func(ctx context.Context, req any) (any, error) {
		return ws.doWork(ctx, req.(*dynamicpb.Message))
	})
}

// emptyReply is the one WorkReply, read-only: every answer is empty.
var emptyReply = dynamicpb.NewMessage(workReply)

// grpcWork is specimen.Work/Do served by a Server.
type grpcWork struct{ s *Server }

// doWork is specimen.Work/Do: the same queue model as "/work". The
// attempt's kind comes from the x-attempt (and x-gateway-attempt)
// metadata as HTTP's from X-Attempt; the cost from the message's cost
// field; the deadline is the call's own (grpc-timeout), honoured only with
// GRPCHonourDeadlines. A call whose client leaves (its deadline passes,
// or it cancels) is the HTTP client gone: its work stays queued unless
// CancelOnDisconnect.
func (g grpcWork) doWork(ctx context.Context, req *dynamicpb.Message) (*dynamicpb.Message, error) {
	s := g.s
	now := time.Now()
	md, _ := metadata.FromIncomingContext(ctx)
	var deadline time.Time
	if s.cfg.GRPCHonourDeadlines {
		deadline, _ = ctx.Deadline()
	}
	res, ok := s.work(ctx.Done(), first(md, HeaderAttempt), first(md, HeaderGatewayAttempt),
		now, deadline, s.cfg.GRPCHonourDeadlines, grpcCost(req))
	if !ok {
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if res.status == 200 {
		return emptyReply, nil
	}
	trailer := metadata.Pairs(MetaReason, res.reason)
	if res.reason == reasonAdmission {
		// The HTTP listener's Retry-After, in the same whole seconds, so
		// that a client honouring either waits as long.
		trailer.Set(MetaPushback, strconv.Itoa(1000*retryAfterSeconds(s.cfg.RetryAfter)))
	}
	_ = grpc.SetTrailer(ctx, trailer)
	return nil, status.Error(grpcCode(res.status), res.reason)
}

// first returns the first value of key in md, or "".
func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// grpcCost is the cost a WorkRequest asks for, as costOf for "/work?cost=":
// within [minCost, maxCost], and 1 when unset (proto3's 0) or NaN.
func grpcCost(req *dynamicpb.Message) float64 {
	f := req.Get(workCostField).Float()
	if f == 0 || math.IsNaN(f) {
		return 1
	}
	return min(max(f, minCost), maxCost)
}

// grpcCode is the status code of a result of the model, whose status is
// HTTP's: 200 OK; 429 (a LimitStatus of 429: the service throttling its
// callers) RESOURCE_EXHAUSTED; 502, 503 and 504 (every refusal, a
// shutdown, the gateway's timeout) UNAVAILABLE, as gRPC's HTTP-to-gRPC
// status mapping has them; anything else UNKNOWN.
func grpcCode(httpStatus int) codes.Code {
	switch httpStatus {
	case 200:
		return codes.OK
	case 429:
		return codes.ResourceExhausted
	case 502, 503, 504:
		return codes.Unavailable
	}
	return codes.Unknown
}

// newGRPCServer returns a grpc.Server serving specimen.Work and the
// reflection service (v1 and v1alpha) over workFile.
func (s *Server) newGRPCServer() *grpc.Server {
	gs := grpc.NewServer(grpc.MaxConcurrentStreams(grpcMaxStreams))
	gs.RegisterService(&workServiceDesc, grpcWork{s})
	opts := reflection.ServerOptions{Services: gs, DescriptorResolver: newSpecimenResolver()}
	reflectionv1.RegisterServerReflectionServer(gs, reflection.NewServerV1(opts))
	reflectionv1alpha.RegisterServerReflectionServer(gs, reflection.NewServer(opts))
	return gs
}

// specimenResolver finds specimen.proto in its own registry, and every
// other file linked in (the reflection service's own) in
// protoregistry.GlobalFiles, for the reflection service: specimen.proto
// is not registered globally, where another copy could clash.
type specimenResolver struct{ own *protoregistry.Files }

func newSpecimenResolver() specimenResolver {
	own := new(protoregistry.Files)
	if err := own.RegisterFile(workFile); err != nil {
		panic(fmt.Sprintf("specimen: register %s: %v", ProtoFile, err)) // an empty registry takes any file
	}
	return specimenResolver{own}
}

func (r specimenResolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.own.FindFileByPath(path); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(path)
}

func (r specimenResolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.own.FindDescriptorByName(name); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(name)
}

// ServeGRPC serves specimen.Work/Do and the reflection service on ln
// (HTTP/2 without TLS) until ctx is done, then refuses the queued calls
// (UNAVAILABLE, as Serve answers 503), lets the calls in flight end (at
// most 2 s) and stops. It does not Close the Server: Serve, or ServeAll,
// does. It returns nil after a shutdown through ctx, or the error that
// stopped serving.
func (s *Server) ServeGRPC(ctx context.Context, ln net.Listener) error {
	gs := s.newGRPCServer()
	errc := make(chan error, 1)
	go func() { errc <- gs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.cancel() // queued calls are answered UNAVAILABLE at once
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		gs.GracefulStop()
	}()
	t := time.NewTimer(grpcGrace)
	select {
	case <-stopped:
		t.Stop()
	case <-t.C:
		gs.Stop()
		<-stopped
	}
	if err == nil {
		err = <-errc
	}
	if err == nil || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return fmt.Errorf("specimen: serve gRPC: %w", err)
}

// ServeAll serves HTTP on httpLn (Serve) and, when grpcLn is not nil, gRPC
// on grpcLn (ServeGRPC) until ctx is done or either stops with an error,
// then stops both and Closes the Server. It returns the errors that
// stopped them, joined, or nil after a shutdown through ctx.
func (s *Server) ServeAll(ctx context.Context, httpLn, grpcLn net.Listener) error {
	if grpcLn == nil {
		return s.Serve(ctx, httpLn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	grpcErr := make(chan error, 1)
	go func() {
		err := s.ServeGRPC(ctx, grpcLn)
		cancel() // a gRPC listener that failed stops the HTTP one too
		grpcErr <- err
	}()
	err := s.Serve(ctx, httpLn)
	cancel()
	return errors.Join(err, <-grpcErr)
}
