package loadgen

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// testMethod is the one method the test gRPC server serves: tt.Svc/Do,
// taking and returning a tt.Req { string id = 1; int64 n = 2; }.
const testMethod = "/tt.Svc/Do"

// testReqDesc builds tt.Req's descriptor (no generated code, no protoc).
func testReqDesc(t testing.TB) protoreflect.MessageDescriptor {
	t.Helper()
	fd := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("tt.proto"),
		Package: proto.String("tt"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Req"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("id"), JsonName: proto.String("id"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()},
				{Name: proto.String("n"), JsonName: proto.String("n"), Number: proto.Int32(2), Type: descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()},
			},
		}},
	}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f.Messages().ByName("Req")
}

// grpcCall is what the test server saw of one call.
type grpcCall struct {
	method   string
	md       metadata.MD
	msg      *dynamicpb.Message
	deadline time.Duration // left until the call's deadline when it arrived; 0: none
	attempt  int           // its attempt number for its x-request-id (1 = first seen)
}

// grpcAnswer is the test server's answer to a call: a status code, a
// trailer, and a wait first (cut short by the call's end).
type grpcAnswer struct {
	code    codes.Code
	trailer metadata.MD
	wait    time.Duration
}

// grpcServer is a loopback gRPC server with a generic handler.
type grpcServer struct {
	addr string
	mu   sync.Mutex
	seen map[string][]grpcCall // by x-request-id
	all  int
}

// startGRPCServer serves every method with answer, which sees each call.
func startGRPCServer(t testing.TB, answer func(c grpcCall) grpcAnswer) *grpcServer {
	t.Helper()
	desc := testReqDesc(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &grpcServer{addr: ln.Addr().String(), seen: map[string][]grpcCall{}}
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		ctx := stream.Context()
		c := grpcCall{msg: dynamicpb.NewMessage(desc)}
		c.method, _ = grpc.Method(ctx)
		c.md, _ = metadata.FromIncomingContext(ctx)
		if dl, ok := ctx.Deadline(); ok {
			c.deadline = time.Until(dl)
		}
		if err := stream.RecvMsg(c.msg); err != nil {
			return err
		}
		id := first(c.md.Get("x-request-id"))
		s.mu.Lock()
		c.attempt = len(s.seen[id]) + 1
		s.seen[id] = append(s.seen[id], c)
		s.all++
		s.mu.Unlock()
		a := answer(c)
		if a.wait > 0 {
			select {
			case <-time.After(a.wait):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if a.trailer != nil {
			stream.SetTrailer(a.trailer)
		}
		if a.code != codes.OK {
			return grpcstatus.Error(a.code, "test")
		}
		return stream.SendMsg(dynamicpb.NewMessage(desc))
	}))
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return s
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// calls returns a copy of the calls seen, by x-request-id.
func (s *grpcServer) calls() map[string][]grpcCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]grpcCall, len(s.seen))
	for k, v := range s.seen {
		out[k] = append([]grpcCall(nil), v...)
	}
	return out
}

// attemptOf is a call's x-attempt.
func attemptOf(c grpcCall) int {
	n, _ := strconv.Atoi(first(c.md.Get("x-attempt")))
	return n
}

// grpcReq is a gRPC Request of the test method to s.
func grpcReq(t testing.TB, s *grpcServer, body string) Request {
	return Request{URL: "grpc://" + s.addr, GRPC: &GRPCCall{Method: testMethod, Input: testReqDesc(t)}, Body: []byte(body)}
}

var _ = context.Background

func dynamicMsg(d protoreflect.MessageDescriptor) *dynamicpb.Message { return dynamicpb.NewMessage(d) }
